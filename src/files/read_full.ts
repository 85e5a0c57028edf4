/**
 * Reading a file into a buffer as far as the file goes: `FsFile.read` may
 * return fewer bytes than asked for, so one call is not enough.
 *
 * @module
 */

import type { FileHandle } from "../platform/file_handle.ts";

/**
 * Fills `buffer` from `file`'s current position as far as the file goes.
 *
 * @returns how many bytes were read: `buffer.length`, or fewer at the end of the file
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readFull } from "./read_full.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "abc");
 * using file = await Deno.open(path);
 * const buffer = new Uint8Array(8);
 * assert.equal(await readFull(file, buffer), 3);
 * await Deno.remove(path);
 * ```
 */
export async function readFull(file: FileHandle, buffer: Uint8Array): Promise<number> {
  let filled = 0;
  while (filled < buffer.length) {
    const read = await file.read(buffer.subarray(filled));
    if (read === null) break;
    filled += read;
  }
  return filled;
}
