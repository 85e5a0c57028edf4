/**
 * Helpers every blob store shares: text is encoded in slices (a 100 MiB
 * output is never encoded at once), and a blob written in one go leaves
 * nothing behind when it fails.
 *
 * @module
 */

import type { BlobInfo, BlobWriter } from "./blob_store.ts";

/** Text is encoded in slices of this many UTF-16 units. */
const ENCODE_UNITS = 1 << 20;

/**
 * Hands `text` to `write` as UTF-8, a slice at a time, never ending a slice
 * between the halves of a surrogate pair (lone surrogates become U+FFFD).
 */
export async function writeTextSlices(
  text: string,
  write: (bytes: Uint8Array) => Promise<void>,
): Promise<void> {
  const encoder = new TextEncoder();
  for (let at = 0; at < text.length;) {
    let end = Math.min(at + ENCODE_UNITS, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += 1;
    await write(encoder.encode(text.slice(at, end)));
    at = end;
  }
}

/** Writes a whole blob through `writer`; on failure it is aborted and the error rethrown. */
export async function writeWhole(
  opened: Promise<BlobWriter>,
  write: (writer: BlobWriter) => Promise<void>,
): Promise<BlobInfo> {
  const writer = await opened;
  try {
    await write(writer);
    const { ref, bytes } = await writer.finish();
    return { ref, bytes };
  } catch (error) {
    await writer.abort();
    throw error;
  }
}
