/**
 * A text known by its two ends and its exact size. An output too large to
 * hold in memory is kept as a window: its first and last bytes, as many as
 * could still be delivered, plus its exact UTF-8 size; the whole text stays
 * on disk. A cut of a window is the cut of the whole text, since a cut never
 * keeps more than a window's ends.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import type { JsonScan } from "./json_scan.ts";

/** The two ends of a text and its size. */
export interface TextWindow {
  /** The text's first characters (the whole text when `tail` is empty and the sizes add up). */
  readonly head: string;
  /**
   * Its last characters; empty when `head` reaches the end. They may overlap
   * `head`: each end only needs to hold what a cut could keep of it.
   */
  readonly tail: string;
  /** The UTF-8 size of the whole text, in bytes. */
  readonly bytes: number;
  /**
   * The whole text scanned as JSON as it streamed past, marked where the
   * head ends: what a json cut needs beyond the head. Absent when the text
   * was not scanned.
   */
  readonly json?: JsonScan | undefined;
}

/**
 * Whether the window holds its whole text: `head + tail` is all of it,
 * without overlap.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isWholeWindow } from "./text_window.ts";
 * assert.ok(isWholeWindow({ head: "abc", tail: "", bytes: 3 }));
 * assert.ok(!isWholeWindow({ head: "a", tail: "c", bytes: 3 }));
 * ```
 */
export function isWholeWindow(window: TextWindow): boolean {
  return Buffer.byteLength(window.head, "utf8") + Buffer.byteLength(window.tail, "utf8") ===
    window.bytes;
}

/**
 * The whole text a window holds, when it holds all of it; a window that
 * fits its cap but has lost its middle is a caller's error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wholeTextOf } from "./text_window.ts";
 * assert.equal(wholeTextOf({ head: "ab", tail: "c", bytes: 3 }), "abc");
 * assert.throws(() => wholeTextOf({ head: "a", tail: "c", bytes: 3 }), RangeError);
 * ```
 */
export function wholeTextOf(window: TextWindow): string {
  if (!isWholeWindow(window)) {
    throw new RangeError(`a window of ${window.bytes} bytes that fits must hold the whole text`);
  }
  return window.head + window.tail;
}
