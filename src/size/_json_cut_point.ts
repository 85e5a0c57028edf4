/**
 * Where a json cut ends what it keeps: the last place in the text whose
 * prefix, once closed, still fits. Places a cut may end at: right after a
 * whole value (a member or an element, or the top-level value), right after
 * a container's opening bracket (nothing of it kept yet), and inside a
 * string value between two characters (never inside an escape, never
 * between the halves of a surrogate pair, raw or escaped). Numbers, `true`,
 * `false`, `null` and keys are whole or not kept.
 *
 * Closing costs what the notes and brackets add, which depends on counts
 * only known past the cut; the walk charges each open container and string
 * the most it can add, so the cut made afterwards with the real counts is
 * never larger. The text is valid JSON as far as it goes (the scanner said
 * so): the walk does not validate.
 *
 * @module
 */

/** The most closing adds, in UTF-8 bytes, per thing open at the cut. */
export interface JsonCloseCosts {
  /** An array: its `]`, and a comma and its note when notes are written. */
  readonly array: number;
  /** An object: its `}`, and a comma and its note member when notes are written. */
  readonly object: number;
  /** A string value: its closing quote, and its note when notes are written. */
  readonly string: number;
}

/** A place to end the kept prefix at. */
export interface JsonCutPoint {
  /** The prefix kept is `text.slice(0, at)`. */
  readonly at: number;
  /** Its UTF-8 bytes. */
  readonly bytes: number;
  /** Whether the cut is inside a string value (which must be closed). */
  readonly inString: boolean;
  /** The most closing it can add (what the walk charged it). */
  readonly closing: number;
}

const VALUE = 0; // a value, or (after `[`) the array's end
const KEY = 1; // a key, or (after `{`) the object's end
const COLON = 2;
const AFTER = 3;
const STRING = 4;
const NUMBER = 5;
const END = 6;

const ARRAY = 0;
const OBJECT = 1;

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;
const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
const isNumberPart = (c: number) =>
  (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69;

/**
 * The last cut point of `text` whose prefix plus the most its closing can
 * add fits `budget` bytes, or `undefined` when none does.
 *
 * @param text one JSON value, valid as far as `end`
 * @param end where the known text ends (the head of a window)
 * @param whole whether `end` is the end of the whole text (a number reaching it is whole)
 */
export function jsonCutPoint(
  text: string,
  end: number,
  budget: number,
  costs: JsonCloseCosts,
  whole: boolean,
): JsonCutPoint | undefined {
  const kinds: number[] = [];
  let state = VALUE;
  let i = 0;
  let bytes = 0;
  /** The most closing the open containers adds. */
  let closing = 0;
  // The best point so far (kept apart: a string offers one per character).
  let bestAt = -1;
  let bestBytes = 0;
  let bestInString = false;
  let bestClosing = 0;
  const consider = (inString: boolean) => {
    const most = closing + (inString ? costs.string : 0);
    if (bytes + most > budget) return;
    bestAt = i;
    bestBytes = bytes;
    bestInString = inString;
    bestClosing = most;
  };
  const best = () =>
    bestAt < 0
      ? undefined
      : { at: bestAt, bytes: bestBytes, inString: bestInString, closing: bestClosing };
  const valueDone = () => {
    state = kinds.length === 0 ? END : AFTER;
    consider(false);
  };
  const pop = () => {
    closing -= kinds.pop() === ARRAY ? costs.array : costs.object;
    i++;
    bytes++;
    valueDone();
  };
  while (i < end && bytes <= budget && state !== END) {
    const c = text.charCodeAt(i);
    if (state !== STRING && state !== NUMBER && isSpace(c)) {
      i++;
      bytes++;
      continue;
    }
    switch (state) {
      case VALUE:
        if (c === 93) pop();
        else if (c === 34) {
          i++;
          bytes++;
          state = STRING;
          consider(true);
        } else if (c === 91 || c === 123) {
          const kind = c === 91 ? ARRAY : OBJECT;
          kinds.push(kind);
          closing += kind === ARRAY ? costs.array : costs.object;
          i++;
          bytes++;
          state = kind === ARRAY ? VALUE : KEY;
          consider(false);
        } else if (c === 116 || c === 102 || c === 110) {
          const length = c === 102 ? 5 : 4;
          if (i + length > end) return best();
          i += length;
          bytes += length;
          valueDone();
        } else state = NUMBER;
        break;
      case KEY: {
        if (c === 125) {
          pop();
          break;
        }
        const close = closingQuote(text, i + 1, end);
        if (close < 0) return best();
        bytes += utf8Bytes(text, i, close + 1);
        i = close + 1;
        state = COLON;
        break;
      }
      case COLON:
        i++;
        bytes++;
        state = VALUE;
        break;
      case AFTER:
        if (c === 44) {
          i++;
          bytes++;
          state = kinds[kinds.length - 1] === ARRAY ? VALUE : KEY;
        } else pop();
        break;
      case STRING: {
        if (c === 34) {
          i++;
          bytes++;
          valueDone();
          break;
        }
        // One character (a surrogate pair, or an escape: two escaped halves as one) at a time.
        let units = 1;
        let size = 1;
        if (c === 92) {
          units = escapeLength(text, i, end, whole);
          if (units === 0) return best();
          size = units;
        } else if (c >= 0x80) {
          size = c < 0x800 ? 2 : 3;
          if (isHigh(c) && i + 1 < end && isLow(text.charCodeAt(i + 1))) {
            units = 2;
            size = 4;
          }
        }
        i += units;
        bytes += size;
        consider(true);
        break;
      }
      case NUMBER: {
        const start = i;
        while (i < end && isNumberPart(text.charCodeAt(i))) i++;
        if (i === end && !whole) return best();
        bytes += i - start;
        valueDone();
        break;
      }
    }
  }
  return best();
}

/** The index of the quote closing the string whose content starts at `from`, or -1 before `end`. */
function closingQuote(text: string, from: number, end: number): number {
  for (let at = text.indexOf('"', from); at >= 0 && at < end; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 92) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

/**
 * The length of the escape at `at` (2, 6, or 12 for an escaped surrogate
 * pair), or 0 when it runs past `end` (or its pair might: `whole` says
 * whether `end` is the end of the text).
 */
function escapeLength(text: string, at: number, end: number, whole: boolean): number {
  if (text.charCodeAt(at + 1) !== 117) return at + 2 <= end ? 2 : 0;
  if (at + 6 > end) return 0;
  if (!isHigh(parseInt(text.slice(at + 2, at + 6), 16))) return 6;
  // An escaped high surrogate: whether its low half follows is only known within the text.
  if (at + 12 > end) return whole ? 6 : 0;
  const paired = text.charCodeAt(at + 6) === 92 && text.charCodeAt(at + 7) === 117 &&
    isLow(parseInt(text.slice(at + 8, at + 12), 16));
  return paired ? 12 : 6;
}

/** UTF-8 bytes of `text.slice(from, to)`, a lone surrogate as 3 (as U+FFFD). */
function utf8Bytes(text: string, from: number, to: number): number {
  let bytes = 0;
  for (let at = from; at < to; at++) {
    const c = text.charCodeAt(at);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (isHigh(c) && at + 1 < to && isLow(text.charCodeAt(at + 1))) {
      bytes += 4;
      at++;
    } else bytes += 3;
  }
  return bytes;
}
