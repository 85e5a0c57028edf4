/**
 * One page of a blob: the bytes from `offset` to `offset + length`, clamped
 * at the end, each edge moved back to the nearest character start, decoded
 * as they are. Pages requested at offsets 0, L, 2L, … therefore tile the
 * blob exactly: each page ends where the next one starts.
 *
 * @module
 */

import type { BlobRef } from "./blob_ref.ts";
import type { BlobStore } from "./blob_store.ts";

/** A page read from a blob. */
export interface BlobPage {
  /** The page's text: exactly the bytes `start` to `end` of the blob. */
  readonly text: string;
  /** The byte offset the page starts at (`offset`, moved back to a character start). */
  readonly start: number;
  /** The byte offset the page ends at, exclusive. */
  readonly end: number;
  /** The blob's size in bytes. */
  readonly size: number;
}

/** Whether `byte` continues a UTF-8 character rather than starting one. */
const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

/**
 * Reads one page of blob `ref`.
 *
 * @param offset where the page starts, in bytes (a non-negative integer)
 * @param length how many bytes it spans at most (a non-negative integer)
 * @returns the page, or `undefined` when the store has no such blob
 * @throws {RangeError} when `offset` or `length` is not a non-negative safe integer
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileBlobStore } from "./file_blob_store.ts";
 * import { readBlobPage } from "./read_blob_page.ts";
 * const store = new FileBlobStore(await Deno.makeTempDir());
 * const { ref } = await store.put("añb"); // a, ñ (2 bytes), b
 * assert.equal((await readBlobPage(store, ref, 0, 2))?.text, "a"); // the edge moves back before ñ
 * assert.equal((await readBlobPage(store, ref, 2, 10))?.text, "ñb");
 * ```
 */
export async function readBlobPage(
  store: BlobStore,
  ref: BlobRef,
  offset: number,
  length: number,
): Promise<BlobPage | undefined> {
  for (const [name, value] of [["offset", offset], ["length", length]] as const) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`${name} must be a non-negative whole number, got \`${value}\``);
    }
  }
  const stat = await store.stat(ref);
  if (stat === undefined) return undefined;
  const size = stat.bytes;
  const wantedStart = Math.min(offset, size);
  const wantedEnd = Math.min(offset + length, size);
  // Up to 3 bytes before each edge may belong to the character it falls in,
  // and one byte after the end says whether the end falls inside one.
  const from = Math.max(0, wantedStart - 3);
  const to = Math.min(size, wantedEnd + 1);
  const read = await store.readRange(ref, from, to);
  if (read === undefined) return undefined;
  const bytes = read.bytes;
  let start = wantedStart;
  while (start > from && isContinuation(bytes[start - from])) start--;
  let end = Math.max(wantedEnd, start);
  while (end > start && isContinuation(bytes[end - from])) end--;
  // ignoreBOM: a page may start with U+FEFF, which is text like any other.
  const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(
    bytes.subarray(start - from, end - from),
  );
  return { text, start, end, size };
}
