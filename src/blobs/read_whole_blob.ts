/**
 * A blob read whole, for the few readers that need it so (an image sent to
 * a model, a stored output served as one MCP resource): through the
 * store's chunks, so it is checked against its reference like any read.
 *
 * @module
 */

import type { BlobRef } from "./blob_ref.ts";
import type { BlobStore } from "./blob_store.ts";

/**
 * Blob `ref`'s bytes, or `undefined` when the store has none.
 *
 * @throws {SpillwayError} `store_failed` when the blob is damaged
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileBlobStore } from "./file_blob_store.ts";
 * import { readWholeBlob } from "./read_whole_blob.ts";
 * const store = new FileBlobStore(await Deno.makeTempDir());
 * const { ref } = await store.put("whole");
 * assert.equal(new TextDecoder().decode(await readWholeBlob(store, ref)), "whole");
 * ```
 */
export async function readWholeBlob(
  store: BlobStore,
  ref: BlobRef,
): Promise<Uint8Array | undefined> {
  const stat = await store.stat(ref);
  const chunks = stat === undefined ? undefined : await store.chunks(ref);
  if (stat === undefined || chunks === undefined) return undefined;
  const bytes = new Uint8Array(stat.bytes);
  let filled = 0;
  for await (const chunk of chunks) {
    if (filled + chunk.length > bytes.length) throw new RangeError(`${ref} grew while read`);
    bytes.set(chunk, filled);
    filled += chunk.length;
  }
  return bytes.subarray(0, filled);
}
