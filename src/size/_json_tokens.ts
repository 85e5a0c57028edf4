/**
 * JSON's tokens as `JsonScanner` reads them, apart from its walk through
 * the nesting: which kind of value a character starts, the states of a
 * number as its characters arrive, and how far a run of plain string
 * characters and whole escapes goes. Each is a small function the scanner's
 * loop calls (and the compiler inlines), so a text of any size is still
 * read once, a character or a native match at a time.
 *
 * @module
 */

import type { JsonValueKind } from "./json_scan.ts";

// Where a number is: what may follow.
/** After `-`: a digit. */
export const N_MINUS = 0;
/** A leading 0: `.`, `e` or the end. */
export const N_ZERO = 1;
/** Integer digits. */
export const N_INT = 2;
const N_DOT = 3; // after `.`: a digit
const N_FRAC = 4; // fraction digits
const N_EXP = 5; // after `e`: a sign or a digit
const N_EXP_SIGN = 6; // after the exponent's sign: a digit
const N_EXP_DIGITS = 7;
/** What {@linkcode nextNumberState} returns when the number does not go on with `c`. */
export const N_STOP = -1;

/** The state of a number after its next character `c`, or {@linkcode N_STOP} when `c` is not part of it. */
export function nextNumberState(number: number, c: number): number {
  if (c >= 48 && c <= 57) {
    if (number === N_ZERO) return N_STOP;
    if (number === N_MINUS) return c === 48 ? N_ZERO : N_INT;
    if (number === N_DOT) return N_FRAC;
    if (number === N_EXP || number === N_EXP_SIGN) return N_EXP_DIGITS;
    return number;
  }
  if (c === 46 && (number === N_ZERO || number === N_INT)) return N_DOT;
  // One exponent: not after the exponent's own digits (`5e258e89` is not a number).
  if ((c === 101 || c === 69) && isWholeNumber(number) && number !== N_EXP_DIGITS) return N_EXP;
  if ((c === 43 || c === 45) && number === N_EXP) return N_EXP_SIGN;
  return N_STOP;
}

/** Whether a number may end where it is. */
export function isWholeNumber(number: number): boolean {
  return number === N_ZERO || number === N_INT || number === N_FRAC || number === N_EXP_DIGITS;
}

/** The kind of value the character `c` starts, or `undefined` when it starts none. */
export function kindOf(c: number): JsonValueKind | undefined {
  if (c === 123) return "object";
  if (c === 91) return "array";
  if (c === 34) return "string";
  if (c === 116 || c === 102) return "boolean";
  if (c === 110) return "null";
  return c === 45 || (c >= 48 && c <= 57) ? "number" : undefined;
}

/** A string run longer than this is matched natively rather than walked. */
const SHORT_RUN = 32;
/**
 * Runs of plain characters and whole escapes, at most 256 at a time: the
 * bound keeps the regular expression's backtracking stack small on a
 * string of any length. (JSON forbids raw control characters in strings.)
 */
// deno-lint-ignore no-control-regex
const STRING_BODY = /(?:[^"\\\x00-\x1f]+|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4}){0,256}/y;

/**
 * Where the string characters from `i` stop, at most `n` (the text's
 * length): at a quote, a backslash that does not start a whole escape in
 * this piece (one the piece ends in, or a bad one), a raw control
 * character, or the end. A short run is walked; a longer one, or one with
 * escapes, is matched natively, a bounded number of runs and escapes at a
 * time.
 */
export function stringRunEnd(text: string, i: number, n: number): number {
  const stop = i + SHORT_RUN < n ? i + SHORT_RUN : n;
  let c = 0;
  while (i < stop) {
    c = text.charCodeAt(i);
    if (c === 34 || c === 92 || c < 32) return c === 92 ? matchedEnd(text, i) : i;
    i++;
  }
  return i === n ? n : matchedEnd(text, i);
}

function matchedEnd(text: string, i: number): number {
  for (;;) {
    STRING_BODY.lastIndex = i;
    STRING_BODY.test(text);
    if (STRING_BODY.lastIndex === i) return i;
    i = STRING_BODY.lastIndex;
  }
}
