/**
 * The cut: keep the head, the tail, or both ends of a text, at UTF-8
 * character boundaries, with the exact marker line, so that the result
 * (marker included) fits a byte limit. It never encodes or copies the whole
 * input: the UTF-8 length is measured natively and only the edges that are
 * kept are encoded or walked.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { ByteSize } from "./byte_size.ts";
import { longestHead, longestTail, NO_EDGE } from "./_utf8_edges.ts";
import { type TextWindow, wholeTextOf } from "./text_window.ts";
import { DEFAULT_HEAD_PERCENT, type TextTruncationStrategy } from "./truncation.ts";

/** What a cut produced. */
export interface CapTextResult {
  /** The text to record and deliver: the input itself when it fit. */
  readonly text: string;
  /** Whether the input was cut. */
  readonly truncated: boolean;
  /** UTF-8 bytes of the input. */
  readonly originalBytes: number;
  /** UTF-8 bytes of `text`, marker included. */
  readonly bytes: number;
}

/** How to cut; every field is optional. */
export interface CapTextOptions {
  /** Which end(s) are kept. Default `head`. (The json cuts are `capJson`'s.) */
  readonly strategy?: TextTruncationStrategy | undefined;
  /**
   * `head_tail` only: the head's share of the kept bytes, a whole percentage
   * from 1 to 99. Default 50.
   */
  readonly headPercent?: number | undefined;
  /**
   * A line placed right after the marker line of a cut text, inside the
   * limit: where the full output can be read (`spill = true`). Default none.
   */
  readonly reference?: string | undefined;
}

/** UTF-8 length measured natively (lone surrogates count as U+FFFD, 3 bytes). */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/**
 * The marker line of a cut text, without a newline:
 * `... [truncated, 623.0 KB → 256.0 KB]`.
 */
export function truncationMarker(originalBytes: number, capBytes: number): string {
  if (lastMarker.originalBytes !== originalBytes || lastMarker.capBytes !== capBytes) {
    const original = ByteSize.fromBytes(originalBytes).human();
    const cap = ByteSize.fromBytes(capBytes).human();
    lastMarker = { originalBytes, capBytes, text: `... [truncated, ${original} → ${cap}]` };
  }
  return lastMarker.text;
}

/**
 * The last marker made. A batch cut at its ceiling gives every response
 * over the water level the same share, and equal responses the same
 * marker: thousands of cuts in a row format it once.
 */
let lastMarker = { originalBytes: -1, capBytes: -1, text: "" };

/**
 * Caps `text` at `capBytes` UTF-8 bytes, marker included. A text at or under
 * the limit comes back unchanged (the same string). With `M` the marker line,
 * a cut text is laid out as
 *
 * - `head` (the default): `HEAD + "\n" + M`;
 * - `tail`: `M + "\n" + TAIL`;
 * - `head_tail`: `HEAD + "\n" + M + "\n" + TAIL`, the kept bytes split
 *   `headPercent` / the rest (the tail also gets what the head's character
 *   boundary left over).
 *
 * With a `reference`, the marker line `M` is followed by `"\n"` and the
 * reference line in every layout. The kept parts fill the limit to within 3
 * bytes and never split a code point or a surrogate pair. Should the limit
 * be smaller than the marker (only possible for a tiny share of the batch
 * ceiling), the text is as much of the layout's marker part (`"\n" + M`,
 * `M + "\n"`, `"\n" + M + "\n"`) as fits.
 *
 * A {@linkcode TextWindow} is cut as the whole text it stands for: its size
 * is the original size, the head is kept from its head and the tail from its
 * tail (from its head when it has no tail).
 *
 * @param input the response content, or a window on it
 * @param capBytes the limit in UTF-8 bytes, a non-negative integer
 * @param options the strategy (default `head`) and the `head_tail` split (default 50)
 * @throws {RangeError} when `capBytes` is not a non-negative safe integer,
 *   `headPercent` is not a whole number from 1 to 99, or a window that fits
 *   the limit does not hold its whole text
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { capText } from "./cap_text.ts";
 * const cut = capText("x".repeat(3000), 1024);
 * assert.equal(cut.truncated, true);
 * assert.ok(cut.bytes <= 1024);
 * assert.ok(cut.text.endsWith("\n... [truncated, 2.9 KB → 1.0 KB]"));
 * assert.equal(capText("short", 1024).text, "short");
 * const tail = capText("x".repeat(3000) + "3 passed", 1024, { strategy: "tail" });
 * assert.ok(tail.text.startsWith("... [truncated, 2.9 KB → 1.0 KB]\nxxx"));
 * assert.ok(tail.text.endsWith("3 passed"));
 * ```
 */
export function capText(
  input: string | TextWindow,
  capBytes: number,
  options: CapTextOptions = {},
): CapTextResult {
  if (!Number.isSafeInteger(capBytes) || capBytes < 0) {
    throw new RangeError(`capBytes must be a non-negative whole number, got \`${capBytes}\``);
  }
  const strategy = options.strategy ?? "head";
  const headPercent = options.headPercent ?? DEFAULT_HEAD_PERCENT;
  if (!Number.isInteger(headPercent) || headPercent < 1 || headPercent > 99) {
    throw new RangeError(`headPercent must be a whole number from 1 to 99, got \`${headPercent}\``);
  }
  const whole = typeof input === "string";
  const originalBytes = whole ? utf8Length(input) : input.bytes;
  if (originalBytes <= capBytes) {
    const text = whole ? input : wholeTextOf(input);
    return { text, truncated: false, originalBytes, bytes: originalBytes };
  }
  const headSource = whole ? input : input.head;
  const tailSource = whole ? input : input.tail === "" ? input.head : input.tail;
  const reference = options.reference === undefined ? "" : "\n" + options.reference;
  const marker = truncationMarker(originalBytes, capBytes) + reference;
  const before = strategy === "tail" ? "" : "\n";
  const after = strategy === "head" ? "" : "\n";
  const markerPart = before + marker + after;
  const markerBytes = utf8Length(markerPart);
  if (markerBytes > capBytes) {
    const part = longestHead(markerPart, capBytes);
    return { text: part.text, truncated: true, originalBytes, bytes: part.bytes };
  }
  const budget = capBytes - markerBytes;
  const headBudget = strategy === "head" ? budget : Math.floor(budget * headPercent / 100);
  const head = strategy === "tail" ? NO_EDGE : longestHead(headSource, headBudget);
  // The tail also takes what the head's character boundary left over.
  const tail = strategy === "head" ? NO_EDGE : longestTail(tailSource, budget - head.bytes);
  return {
    text: head.text + markerPart + tail.text,
    truncated: true,
    originalBytes,
    bytes: head.bytes + markerBytes + tail.bytes,
  };
}
