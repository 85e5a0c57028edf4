/**
 * The two edges a cut keeps, measured in UTF-8 bytes without encoding the
 * whole text: the longest prefix and the longest suffix that fit a byte
 * budget, never splitting a code point or a surrogate pair. A lone surrogate
 * counts as the 3 bytes of U+FFFD, as `Buffer.byteLength` counts it, and is
 * kept as it is (the edges are slices of the input, never re-decoded).
 *
 * @module
 */

import { Buffer } from "node:buffer";

/** A slice of a text and its UTF-8 length. */
export interface Edge {
  /** The kept slice, a substring of the input. */
  readonly text: string;
  /** Its UTF-8 length in bytes. */
  readonly bytes: number;
}

/** The empty edge: nothing kept. */
export const NO_EDGE: Edge = Object.freeze({ text: "", bytes: 0 });
const encoder = new TextEncoder();

/**
 * The bytes a head is encoded into when its budget fits: only the counts
 * `encodeInto` reports are kept, so every cut can reuse one buffer. A batch
 * cut at its ceiling measures thousands of small heads, and a fresh array
 * buffer per head was a third of the cut's time and young garbage.
 */
const SCRATCH_BYTES = 64 * 1024;
let scratch: Uint8Array | undefined;

/** The longest prefix of `text` whose UTF-8 encoding fits `budget` bytes. */
export function longestHead(text: string, budget: number): Edge {
  if (budget <= 0 || text === "") return NO_EDGE;
  // encodeInto stops at a code point boundary once the buffer is full and
  // reports how many UTF-16 units it consumed: only the head is encoded.
  const into = budget <= SCRATCH_BYTES
    ? (scratch ??= new Uint8Array(SCRATCH_BYTES)).subarray(0, budget)
    : new Uint8Array(budget);
  const { read, written } = encoder.encodeInto(text, into);
  return { text: text.slice(0, read), bytes: written };
}

/** The longest suffix of `text` whose UTF-8 encoding fits `budget` bytes. */
export function longestTail(text: string, budget: number): Edge {
  if (budget <= 0 || text === "") return NO_EDGE;
  // Fast path: when the last `budget` units measure `budget` bytes they are
  // all ASCII (any other unit takes at least 2 bytes), so nothing longer fits.
  const candidate = text.length <= budget ? text : text.slice(text.length - budget);
  const measured = Buffer.byteLength(candidate, "utf8");
  if (measured <= budget && (candidate === text || measured === candidate.length)) {
    return { text: candidate, bytes: measured };
  }
  // Walk back from the end one character at a time: the walk is bounded by
  // the budget, not by the text.
  let start = text.length;
  let bytes = 0;
  while (start > 0) {
    const unit = text.charCodeAt(start - 1);
    let size = 3;
    let width = 1;
    if (unit < 0x80) size = 1;
    else if (unit < 0x800) size = 2;
    else if (unit >= 0xdc00 && unit <= 0xdfff && start >= 2) {
      const high = text.charCodeAt(start - 2);
      if (high >= 0xd800 && high <= 0xdbff) {
        size = 4;
        width = 2;
      }
    }
    if (bytes + size > budget) break;
    bytes += size;
    start -= width;
  }
  return { text: text.slice(start), bytes };
}
