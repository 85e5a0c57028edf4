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
  /** Whether more lines than `maxMatches` match (the search stopped at the first past them). */
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
 * Chunks are decoded this many bytes at a time. The strings a search makes
 * stay small and short-lived (the young generation collects them before
 * they pile up): decoding a 1 MiB chunk at once, then cutting the rest of
 * it line by line, kept each chunk's text alive across the next read and
 * let a search of 128 MiB peak at 100 MiB above idle (measured,
 * docs/performance.md).
 */
const DECODE_BYTES = 64 * 1024;

/**
 * A copy of `text` that does not keep the string it was cut from alive. V8
 * makes a slice of a long string a view of it: a match kept as one held its
 * whole chunk of text, and a search with a few hundred matches held a few
 * hundred MiB (measured, docs/performance.md). Prepending a character makes
 * a new string, which slicing it flattens into a copy of its own.
 */
function detached(text: string): string {
  return (" " + text).slice(1);
}

/**
 * Searches blob `ref` line by line.
 *
 * @param store where the blob is (only its size and its chunks are read)
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
  store: Pick<BlobStore, "stat" | "chunks">,
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
  let more = false;
  /** The start of the line the next text continues, which no newline ended yet. */
  let carry = "";
  /** The byte offset of `carry`'s first character. */
  let offset = 0;
  const test = (line: string) => {
    if (plain.test(line)) {
      // One match past the limit says there are more, and ends the search.
      if (matches.length === maxMatches) more = true;
      else {
        const shown = line.length <= maxLineChars ? line : `${line.slice(0, maxLineChars)}…`;
        matches.push({ offset, line: detached(shown) });
      }
    }
    offset += Buffer.byteLength(line, "utf8");
  };
  /** Searches the pieces of `line` longer than a piece, and returns the rest. */
  const pieces = (line: string): string => {
    while (line.length > MAX_PIECE_CHARS && !more) {
      let cut = MAX_PIECE_CHARS;
      const last = line.charCodeAt(cut - 1);
      if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
      test(line.slice(0, cut));
      line = line.slice(cut);
    }
    return line;
  };
  /** Searches the lines `text` ends, and keeps the start of the next one. */
  const scan = (text: string) => {
    let from = 0;
    let newline: number;
    while (!more && (newline = text.indexOf("\n", from)) >= 0) {
      const line = pieces(
        carry === "" ? text.slice(from, newline) : carry + text.slice(from, newline),
      );
      carry = "";
      if (more) return;
      test(line);
      offset += 1;
      from = newline + 1;
    }
    if (!more && from < text.length) carry = pieces(carry + text.slice(from));
  };
  const iterator = chunks[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) break;
      const chunk = next.value;
      for (let at = 0; at < chunk.length && !more; at += DECODE_BYTES) {
        scan(decoder.decode(chunk.subarray(at, at + DECODE_BYTES), { stream: true }));
      }
      if (more) return { matches, stopped: true, size };
    }
    scan(decoder.decode());
  } finally {
    // A search that stopped early lets the store close what it reads from.
    await iterator.return?.();
  }
  if (carry !== "" && !more) test(carry);
  return { matches, stopped: more, size };
}
