/**
 * The blob references a file mentions, read in chunks so that a stream of
 * hundreds of megabytes is scanned in flat memory: what `conversation gc`
 * collects from every conversation before it removes unreferenced blobs.
 *
 * @module
 */

import { type BlobRef, blobRefsIn } from "./blob_ref.ts";
import * as files from "../platform/files.ts";
import type { FileHandle } from "../platform/file_handle.ts";
import { isNotFound } from "../platform/file_errors.ts";

const CHUNK_BYTES = 1 << 20;
/** A reference is 71 ASCII characters: keeping this much of each chunk finds one cut across two. */
const OVERLAP_CHARS = 70;

/**
 * Adds every reference in file `path` to `into` (nothing when the file does
 * not exist).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { BlobRef } from "./blob_ref.ts";
 * import { blobRefsInFile } from "./blob_refs_in_file.ts";
 * const path = await Deno.makeTempFile();
 * const ref = "sha256:" + "a".repeat(64);
 * await Deno.writeTextFile(path, `{"content":"… ref=\\"${ref}\\" …"}\n`);
 * const found = new Set<BlobRef>();
 * await blobRefsInFile(path, found);
 * assert.deepEqual([...found], [ref]);
 * ```
 */
export async function blobRefsInFile(path: string, into: Set<BlobRef>): Promise<void> {
  let file: FileHandle;
  try {
    file = await files.open(path, { read: true });
  } catch (error) {
    if (isNotFound(error)) return;
    throw error;
  }
  using _closed = file;
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(CHUNK_BYTES);
  let carry = "";
  for (;;) {
    const read = await file.read(buffer);
    const text = carry +
      (read === null
        ? decoder.decode()
        : decoder.decode(buffer.subarray(0, read), { stream: true }));
    for (const ref of blobRefsIn(text)) into.add(ref);
    if (read === null) return;
    carry = text.slice(-OVERLAP_CHARS);
  }
}
