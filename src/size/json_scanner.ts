/**
 * One pass over a text, in pieces as it arrives or whole, that says whether
 * it is exactly one JSON value and what a cut at one chosen place (the
 * mark) needs to know about the part after it: how many members or
 * elements each container open at the mark has in all, and how many bytes
 * are left of a string open there. The json cut reads the text before the
 * mark itself; this is everything it needs from beyond. An output too large
 * to hold is scanned as it streams past (the mark at the end of the head it
 * keeps), a text in memory in one piece: both are the same scanner, so
 * their cuts agree byte for byte.
 *
 * It holds no more than a few numbers per level of nesting, whatever the
 * text's size, validates as `JSON.parse` does (surrounding JSON whitespace
 * allowed, nothing else), and never builds a value.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import {
  isWholeNumber,
  kindOf,
  N_INT,
  N_MINUS,
  N_STOP,
  N_ZERO,
  nextNumberState,
  stringRunEnd,
} from "./_json_tokens.ts";
import type { JsonScan, JsonValueKind } from "./json_scan.ts";

/**
 * The deepest nesting scanned: a text nested deeper counts as not one JSON
 * value (as deep as Go's `encoding/json` goes; far deeper than real data).
 */
export const MAX_JSON_DEPTH = 10_000;

// States between characters.
const VALUE = 0; // a value is next
const VALUE_OR_CLOSE = 1; // after `[`: a value or `]`
const KEY = 2; // after `,` in an object
const KEY_OR_CLOSE = 3; // after `{`: a key or `}`
const COLON = 4;
const AFTER = 5; // after a value in a container: `,` or its closer
const END = 6; // after the top-level value: whitespace only
const STRING = 7;
const ESCAPE = 8; // after a backslash in a string
const UNICODE = 9; // inside `\uXXXX`
const NUMBER = 10;
const LITERAL = 11;
const ERROR = 12;

const ARRAY = 0;
const OBJECT = 1;
const KINDS = ["array", "object"] as const;

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/**
 * The incremental scanner: {@linkcode push} the text in pieces (or whole),
 * {@linkcode mark} once where a cut may land, {@linkcode end} for the facts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { JsonScanner } from "./json_scanner.ts";
 * const scanner = new JsonScanner();
 * scanner.push('{"items": [1, 2,');
 * scanner.mark();
 * scanner.push(' 3, 4], "next": "abc"}');
 * const scan = scanner.end();
 * assert.equal(scan.value, "object");
 * assert.deepEqual(scan.open, [
 *   { kind: "object", before: 1, total: 2 },
 *   { kind: "array", before: 2, total: 4 },
 * ]);
 * assert.equal(JsonScanner.scan("[1, 2] trailing", 3).value, undefined);
 * ```
 */
export class JsonScanner {
  #state = VALUE;
  #depth = 0;
  /** Per level of nesting: array or object, and the members or elements begun. */
  readonly #kinds: number[] = [];
  readonly #started: number[] = [];
  #top: JsonValueKind | undefined;
  #inKey = false;
  #number = N_MINUS;
  #literal = "";
  #literalAt = 0;
  #hexDigits = 0;
  /** UTF-16 units pushed so far. */
  #offset = 0;
  #markAt = -1;
  /** The levels still open since the mark (their containers are the marked ones). */
  #markedDepth = 0;
  #marked: { kind: number; before: number; total: number | undefined }[] = [];
  /** The string value open at the mark: its bytes are counted until it closes. */
  #markedString: { rest: number; closed: boolean } | undefined;
  /** Whether the last piece counted ended with a high surrogate (counted as a lone one). */
  #pendingHigh = false;
  #ended = false;

  /**
   * Scans `text` whole with the mark at `markAt` (UTF-16 units from its
   * start; clamped to the text).
   */
  static scan(text: string, markAt: number): JsonScan {
    const scanner = new JsonScanner();
    const at = Math.max(0, Math.min(markAt, text.length));
    scanner.push(text.slice(0, at));
    scanner.mark();
    scanner.push(text.slice(at));
    return scanner.end();
  }

  /** Where the mark is (-1 before {@linkcode mark}). */
  get markAt(): number {
    return this.#markAt;
  }

  /**
   * Marks the current position: the place a cut may land. Once only.
   *
   * @throws {RangeError} when the scanner was already marked
   */
  mark(): void {
    if (this.#markAt >= 0) throw new RangeError("a JsonScanner is marked once");
    this.#markAt = this.#offset;
    if (this.#state === ERROR) return;
    this.#markedDepth = this.#depth;
    for (let level = 0; level < this.#depth; level++) {
      this.#marked.push({
        kind: this.#kinds[level]!,
        before: this.#started[level]!,
        total: undefined,
      });
    }
    const inString = this.#state === STRING || this.#state === ESCAPE ||
      this.#state === UNICODE;
    if (inString && !this.#inKey) this.#markedString = { rest: 0, closed: false };
  }

  /** Scans the next piece of the text. */
  push(text: string): void {
    const n = text.length;
    this.#offset += n;
    if (this.#state === ERROR || this.#ended) return;
    const kinds = this.#kinds;
    const started = this.#started;
    let state = this.#state;
    let depth = this.#depth;
    let i = 0;
    loop: while (i < n) {
      switch (state) {
        case VALUE:
        case VALUE_OR_CLOSE: {
          let c = text.charCodeAt(i);
          while (isSpace(c)) {
            if (++i === n) break loop;
            c = text.charCodeAt(i);
          }
          if (c === 93 && state === VALUE_OR_CLOSE) {
            state = this.#close(depth--);
            i++;
            continue;
          }
          if (depth === 0) this.#top = kindOf(c);
          else if (kinds[depth - 1] === ARRAY) started[depth - 1] = started[depth - 1]! + 1;
          i++;
          if (c === 34) {
            this.#inKey = false;
            state = STRING;
          } else if (c === 123 || c === 91) {
            if (depth === MAX_JSON_DEPTH) {
              state = ERROR;
              break loop;
            }
            kinds[depth] = c === 123 ? OBJECT : ARRAY;
            started[depth] = 0;
            depth++;
            state = c === 123 ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
          } else if (c === 45 || (c >= 48 && c <= 57)) {
            this.#number = c === 45 ? N_MINUS : c === 48 ? N_ZERO : N_INT;
            state = NUMBER;
          } else if (c === 116 || c === 102 || c === 110) {
            this.#literal = c === 116 ? "true" : c === 102 ? "false" : "null";
            this.#literalAt = 1;
            state = LITERAL;
          } else {
            state = ERROR;
            break loop;
          }
          continue;
        }
        case KEY:
        case KEY_OR_CLOSE: {
          let c = text.charCodeAt(i);
          while (isSpace(c)) {
            if (++i === n) break loop;
            c = text.charCodeAt(i);
          }
          i++;
          if (c === 34) {
            started[depth - 1] = started[depth - 1]! + 1;
            this.#inKey = true;
            state = STRING;
          } else if (c === 125 && state === KEY_OR_CLOSE) {
            state = this.#close(depth--);
          } else {
            state = ERROR;
            break loop;
          }
          continue;
        }
        case COLON: {
          let c = text.charCodeAt(i);
          while (isSpace(c)) {
            if (++i === n) break loop;
            c = text.charCodeAt(i);
          }
          i++;
          if (c !== 58) {
            state = ERROR;
            break loop;
          }
          state = VALUE;
          continue;
        }
        case AFTER: {
          let c = text.charCodeAt(i);
          while (isSpace(c)) {
            if (++i === n) break loop;
            c = text.charCodeAt(i);
          }
          i++;
          const kind = kinds[depth - 1];
          if (c === 44) state = kind === ARRAY ? VALUE : KEY;
          else if (c === (kind === ARRAY ? 93 : 125)) state = this.#close(depth--);
          else {
            state = ERROR;
            break loop;
          }
          continue;
        }
        case END: {
          const c = text.charCodeAt(i++);
          if (!isSpace(c)) {
            state = ERROR;
            break loop;
          }
          continue;
        }
        case STRING: {
          i = stringRunEnd(text, i, n);
          if (i === n) break loop;
          const c = text.charCodeAt(i);
          if (c === 34) {
            const string = this.#markedString;
            if (string !== undefined && !string.closed && !this.#inKey) {
              this.#countRest(string, text, i);
              string.closed = true;
            }
            i++;
            state = this.#inKey ? COLON : depth === 0 ? END : AFTER;
          } else if (c === 92) {
            // An escape the piece ends in (or a bad one): read a character at a time.
            i++;
            state = ESCAPE;
          } else {
            state = ERROR;
            break loop;
          }
          continue;
        }
        case ESCAPE: {
          const c = text.charCodeAt(i++);
          if (c === 117) {
            this.#hexDigits = 0;
            state = UNICODE;
          } else if (
            c === 34 || c === 92 || c === 47 || c === 98 || c === 102 || c === 110 || c === 114 ||
            c === 116
          ) {
            state = STRING;
          } else {
            state = ERROR;
            break loop;
          }
          continue;
        }
        case UNICODE: {
          const c = text.charCodeAt(i++);
          const hex = (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
          if (!hex) {
            state = ERROR;
            break loop;
          }
          if (++this.#hexDigits === 4) state = STRING;
          continue;
        }
        case NUMBER: {
          let number = this.#number;
          for (; i < n; i++) {
            const next = nextNumberState(number, text.charCodeAt(i));
            if (next === N_STOP) break;
            number = next;
          }
          this.#number = number;
          if (i === n) break loop;
          // The character after the number is read again in the state after it.
          if (!isWholeNumber(number)) {
            state = ERROR;
            break loop;
          }
          state = depth === 0 ? END : AFTER;
          continue;
        }
        case LITERAL: {
          const literal = this.#literal;
          if (text.charCodeAt(i++) !== literal.charCodeAt(this.#literalAt++)) {
            state = ERROR;
            break loop;
          }
          if (this.#literalAt === literal.length) state = depth === 0 ? END : AFTER;
          continue;
        }
        default:
          break loop;
      }
    }
    const string = this.#markedString;
    if (string !== undefined && !string.closed && state !== ERROR) this.#countRest(string, text, n);
    this.#state = state;
    this.#depth = depth;
  }

  /**
   * Ends the text and returns what the scan found. Nothing more is scanned
   * after it; calling it again returns the same facts.
   */
  end(): JsonScan {
    if (!this.#ended) {
      this.#ended = true;
      // A number ends with the text only at the top level.
      if (this.#state === NUMBER) {
        this.#state = this.#depth === 0 && isWholeNumber(this.#number) ? END : ERROR;
      }
    }
    const value = this.#state === END ? this.#top : undefined;
    const open = this.#marked.map(({ kind, before, total }) =>
      total === undefined ? { kind: KINDS[kind]!, before } : { kind: KINDS[kind]!, before, total }
    );
    const string = this.#markedString;
    return {
      ...(value === undefined ? {} : { value }),
      markAt: this.#markAt,
      open,
      ...(string === undefined ? {} : { string: { ...string } }),
    };
  }

  /**
   * Adds the UTF-8 bytes of `text.slice(0, to)` to the marked string's rest.
   * A surrogate pair split between two pieces counts 4 bytes, as whole.
   */
  #countRest(string: { rest: number }, text: string, to: number): void {
    if (to === 0) return;
    string.rest += Buffer.byteLength(to === text.length ? text : text.slice(0, to), "utf8");
    const first = text.charCodeAt(0);
    // Counted apart, the halves took 3 bytes each (as U+FFFD); together they take 4.
    if (this.#pendingHigh && first >= 0xdc00 && first <= 0xdfff) string.rest -= 2;
    const last = text.charCodeAt(to - 1);
    this.#pendingHigh = last >= 0xd800 && last <= 0xdbff;
  }

  /**
   * Closes the innermost container (`depth` levels are open; the caller
   * takes one off, and has checked its closer) and returns the state after it.
   */
  #close(depth: number): number {
    const level = depth - 1;
    if (level < this.#markedDepth) {
      this.#marked[level]!.total = this.#started[level]!;
      this.#markedDepth = level;
    }
    return level === 0 ? END : AFTER;
  }
}
