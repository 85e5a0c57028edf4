/**
 * Reading an `events.jsonl` file back: the whole-file load, and the cheap
 * tail check the file store runs before appending to an existing log (so new
 * events never glue onto the fragment a crash left behind).
 *
 * Only the last line may be damaged: appends are single writes at the end of
 * the file, so a crash tears at most the line being written. A bad line
 * anywhere else means the file was changed by something else, and loading it
 * silently would drop complete events; that is an error.
 *
 * @module
 */

import { SpillwayError } from "../errors/spillway_error.ts";
import type { StreamEvent } from "./events.ts";
import type { LoadedStream } from "./stream_store.ts";
import { errorText, isEventLine, parseEventLine, tornLineWarning } from "./_event_lines.ts";
import { readFull } from "../files/read_full.ts";
import * as files from "../platform/files.ts";
import type { FileHandle } from "../platform/file_handle.ts";

const NEWLINE = 10;
const TAIL_CHUNK_BYTES = 64 * 1024;
const COUNT_CHUNK_BYTES = 1024 * 1024;

/** Where a damaged last line starts, how long it is, and its 1-based line number. */
export interface TornTail {
  readonly start: number;
  readonly bytes: number;
  readonly line: number;
}

/**
 * Loads every complete event of the log at `path`, skipping a torn last line
 * with a warning.
 *
 * @param limit read only the first `limit` bytes (the rest is not part of the conversation)
 * @throws {SpillwayError} `store_failed` when the file cannot be read or a line
 * before the last one is not an event
 */
export async function readEventLog(path: string, limit?: number): Promise<LoadedStream> {
  let bytes: Uint8Array;
  try {
    bytes = await files.readFile(path);
    if (limit !== undefined) bytes = bytes.subarray(0, limit);
  } catch (error) {
    throw new SpillwayError(
      "store_failed",
      `could not read ${path}: ${errorText(error)}`,
      { path },
      { cause: error },
    );
  }
  const warnings: string[] = [];
  // An unterminated tail is cut off on the bytes, so its size is reported in
  // bytes even when the crash split a multi-byte character.
  let end = bytes.length;
  let unterminated = 0;
  if (end > 0 && bytes[end - 1] !== NEWLINE) {
    const start = bytes.lastIndexOf(NEWLINE) + 1;
    unterminated = end - start;
    end = start;
  }
  const text = new TextDecoder().decode(bytes.subarray(0, end));
  const events: StreamEvent[] = [];
  let line = 0;
  let pos = 0;
  while (pos < text.length) {
    const newline = text.indexOf("\n", pos);
    line += 1;
    try {
      events.push(parseEventLine(text.slice(pos, newline)));
    } catch (error) {
      const isLast = newline === text.length - 1 && unterminated === 0;
      if (!isLast) {
        throw new SpillwayError(
          "store_failed",
          `${path}: line ${line} is not a valid event (${errorText(error)}); only a torn last ` +
            `line can be skipped, so this file needs repair`,
          { path, line },
          { cause: error },
        );
      }
      const lineStart = end >= 2 ? bytes.lastIndexOf(NEWLINE, end - 2) + 1 : 0;
      warnings.push(tornLineWarning(end - 1 - lineStart, line));
    }
    pos = newline + 1;
  }
  if (unterminated > 0) warnings.push(tornLineWarning(unterminated, line + 1));
  return { events, warnings };
}

/**
 * Finds a damaged last line (unterminated, or terminated but not an event)
 * without reading the whole file: it scans back from the end to the previous
 * newline, and counts lines only when there is something to report.
 *
 * @returns the torn tail, or `undefined` when the file ends with a complete event (or is empty)
 */
export async function findTornTail(path: string): Promise<TornTail | undefined> {
  using file = await files.open(path, { read: true });
  const size = (await file.stat()).size;
  if (size === 0) return undefined;
  const terminated = (await readAt(file, size - 1, 1))[0] === NEWLINE;
  const lineEnd = terminated ? size - 1 : size;
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (let pos = lineEnd; pos > 0;) {
    const from = Math.max(0, pos - TAIL_CHUNK_BYTES);
    const chunk = await readAt(file, from, pos - from);
    const newline = chunk.lastIndexOf(NEWLINE);
    // Only a terminated line has to be parsed; an unterminated one is torn anyway.
    if (terminated) chunks.unshift(newline >= 0 ? chunk.subarray(newline + 1) : chunk);
    if (newline >= 0) {
      start = from + newline + 1;
      break;
    }
    pos = from;
  }
  if (terminated && isEventLine(new TextDecoder().decode(concat(chunks)))) return undefined;
  const line = (await countNewlines(file, start)) + 1;
  return { start, bytes: lineEnd - start, line };
}

async function readAt(file: FileHandle, offset: number, length: number): Promise<Uint8Array> {
  await file.seek(offset, 0);
  const buffer = new Uint8Array(length);
  const filled = await readFull(file, buffer);
  if (filled < length) throw new Error(`unexpected end of file at byte ${offset + filled}`);
  return buffer;
}

async function countNewlines(file: FileHandle, length: number): Promise<number> {
  let count = 0;
  for (let offset = 0; offset < length; offset += COUNT_CHUNK_BYTES) {
    const chunk = await readAt(file, offset, Math.min(COUNT_CHUNK_BYTES, length - offset));
    for (let i = chunk.indexOf(NEWLINE); i >= 0; i = chunk.indexOf(NEWLINE, i + 1)) count += 1;
  }
  return count;
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((sum, c) => sum + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
