/**
 * `grep` over a blob: the lines that match a regular expression, each with
 * the byte offset it starts at (ready to page from with `read_tool_output`).
 * The blob is read in chunks (the store's), never whole, so a 1 GiB output
 * can be searched in flat memory.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import type { BlobRef } from "./blob_ref.ts";
import type { BlobStore } from "./blob_store.ts";

/** One matching line. */
export interface BlobMatch {
  /** The byte offset of the line's first character in the blob. */
  readonly offset: number;
  /** The line without its newline, shortened to `maxLineChars` (then ending in `…`). */
  readonly line: string;
}

/** What a search found. */
export interface BlobSearch {
  /** The matches, in order. */
  readonly matches: readonly BlobMatch[];
  /** Whether the search stopped at `maxMatches` before the end of the blob. */
  readonly stopped: boolean;
  /** The blob's size in bytes. */
  readonly size: number;
}

/** Options of {@linkcode searchBlob}. */
export interface SearchBlobOptions {
  /** Stop after this many matches. Default 1,000. */
  readonly maxMatches?: number;
  /** Longest line shown, in UTF-16 units. Default 1,000. */
  readonly maxLineChars?: number;
}

/** A line longer than this is searched in pieces of this size (each piece its own "line"). */
const MAX_PIECE_CHARS = 1 << 20;

/**
 * Searches blob `ref` line by line.
 *
 * @returns the matches, or `undefined` when the store has no such blob
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileBlobStore } from "./file_blob_store.ts";
 * import { searchBlob } from "./search_blob.ts";
 * const store = new FileBlobStore(await Deno.makeTempDir());
 * const { ref } = await store.put("ok 1\nFAILED 2\nok 3\n");
 * const found = await searchBlob(store, ref, /FAIL/);
 * assert.deepEqual(found?.matches, [{ offset: 5, line: "FAILED 2" }]);
 * ```
 */
export async function searchBlob(
  store: BlobStore,
  ref: BlobRef,
  pattern: RegExp,
  options: SearchBlobOptions = {},
): Promise<BlobSearch | undefined> {
  const maxMatches = options.maxMatches ?? 1000;
  const maxLineChars = options.maxLineChars ?? 1000;
  // A global or sticky expression keeps state between tests: search with a plain copy.
  const plain = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ""));
  const stat = await store.stat(ref);
  const chunks = stat === undefined ? undefined : await store.chunks(ref);
  if (stat === undefined || chunks === undefined) return undefined;
  const size = stat.bytes;
  // ignoreBOM: a leading U+FEFF is text, and its 3 bytes count in every offset after it.
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const matches: BlobMatch[] = [];
  let carry = "";
  let carryOffset = 0;
  const test = (line: string, offset: number) => {
    if (!plain.test(line)) return;
    const shown = line.length <= maxLineChars ? line : `${line.slice(0, maxLineChars)}…`;
    matches.push({ offset, line: shown });
  };
  const iterator = chunks[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await iterator.next();
      carry += next.done === true ? decoder.decode() : decoder.decode(next.value, { stream: true });
      let newline: number;
      while ((newline = carry.indexOf("\n")) >= 0 && matches.length < maxMatches) {
        const line = carry.slice(0, newline);
        test(line, carryOffset);
        carryOffset += Buffer.byteLength(line, "utf8") + 1;
        carry = carry.slice(newline + 1);
      }
      if (matches.length >= maxMatches) return { matches, stopped: true, size };
      while (carry.length > MAX_PIECE_CHARS && matches.length < maxMatches) {
        let cut = MAX_PIECE_CHARS;
        const last = carry.charCodeAt(cut - 1);
        if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
        const piece = carry.slice(0, cut);
        test(piece, carryOffset);
        carryOffset += Buffer.byteLength(piece, "utf8");
        carry = carry.slice(cut);
      }
      if (next.done === true) break;
    }
  } finally {
    // A search that stopped early lets the store close what it reads from.
    await iterator.return?.();
  }
  if (carry !== "" && matches.length < maxMatches) test(carry, carryOffset);
  return { matches, stopped: false, size };
}
