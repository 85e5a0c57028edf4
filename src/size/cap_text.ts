/**
 * The cut: keep the head of a text, at a UTF-8 character boundary, and
 * append the exact marker, so that the result (marker included) fits a byte
 * limit. It never encodes or copies the whole input: the UTF-8 length is
 * measured natively and only the head that is kept is encoded.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { ByteSize } from "./byte_size.ts";

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

const encoder = new TextEncoder();

/** UTF-8 length measured natively (lone surrogates count as U+FFFD, 3 bytes). */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/**
 * The marker appended to a cut text, newline included:
 * `\n... [truncated, 623.0 KB → 256.0 KB]`.
 */
export function truncationMarker(originalBytes: number, capBytes: number): string {
  const original = ByteSize.fromBytes(originalBytes).human();
  const cap = ByteSize.fromBytes(capBytes).human();
  return `\n... [truncated, ${original} → ${cap}]`;
}

/**
 * Caps `text` at `capBytes` UTF-8 bytes, marker included. A text at or under
 * the limit comes back unchanged (the same string). A cut keeps the longest
 * head that fits (within 3 bytes of the limit) and never splits a code point
 * or a surrogate pair. Should the limit be smaller than the marker itself
 * (only possible for a tiny share of the batch ceiling), the text is as much
 * of the marker as fits.
 *
 * @param text the response content
 * @param capBytes the limit in UTF-8 bytes, a non-negative integer
 * @throws {RangeError} when `capBytes` is not a non-negative safe integer
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
 * ```
 */
export function capText(text: string, capBytes: number): CapTextResult {
  if (!Number.isSafeInteger(capBytes) || capBytes < 0) {
    throw new RangeError(`capBytes must be a non-negative whole number, got \`${capBytes}\``);
  }
  const originalBytes = utf8Length(text);
  if (originalBytes <= capBytes) {
    return { text, truncated: false, originalBytes, bytes: originalBytes };
  }
  const marker = truncationMarker(originalBytes, capBytes);
  const markerBytes = utf8Length(marker);
  if (markerBytes > capBytes) {
    const head = longestHead(marker, capBytes);
    return { text: head.text, truncated: true, originalBytes, bytes: head.bytes };
  }
  const head = longestHead(text, capBytes - markerBytes);
  return {
    text: head.text + marker,
    truncated: true,
    originalBytes,
    bytes: head.bytes + markerBytes,
  };
}

/** The longest prefix of `text` whose UTF-8 encoding fits `budget` bytes. */
function longestHead(text: string, budget: number): { text: string; bytes: number } {
  if (budget === 0) return { text: "", bytes: 0 };
  // encodeInto stops at a code point boundary once the buffer is full and
  // reports how many UTF-16 units it consumed: only the head is encoded.
  const { read, written } = encoder.encodeInto(text, new Uint8Array(budget));
  return { text: text.slice(0, read), bytes: written };
}
