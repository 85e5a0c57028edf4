/**
 * Where a tool source puts an output too large to hold in memory: the
 * Host's word on how much of each end to keep (the most a cap could still
 * deliver), and a file for the whole text. With `spill = true` the file is
 * a blob of the workspace's store (kept, named by its hash); otherwise a
 * spool file that lives until the call is released (the terminal may keep
 * it as its full-result file).
 *
 * @module
 */

import { join } from "node:path";
import type { BlobRef } from "../blobs/blob_ref.ts";
import type { BlobStore, BlobWriter } from "../blobs/blob_store.ts";

/** What a finished output file is. */
export interface FinishedOutput {
  /** The file holding the whole text. */
  readonly path: string;
  /** Its blob reference, when it is a stored output. */
  readonly ref?: BlobRef;
  /** Whether it exists only for this call (a spool file). */
  readonly temporary: boolean;
}

/** The file an output is written to, a chunk at a time. */
export interface OutputFile {
  /** Appends bytes (all of them). */
  write(bytes: Uint8Array): Promise<void>;
  /**
   * Makes the file final. With a `prefix`, the file holds the prefix's UTF-8
   * and then what was written (a failed tool's status before its output).
   */
  finish(prefix?: string): Promise<FinishedOutput>;
  /** Drops the file. Idempotent. */
  abort(): Promise<void>;
}

/** Where a source streams a large output, and how much of it to hold. */
export interface OutputSink {
  /**
   * Bytes of each end of the text to hold in memory: the larger of the
   * tool's threshold and the batch ceiling, so every cut stays exact.
   */
  readonly windowBytes: number;
  /** Opens the file the whole text goes to. */
  open(): Promise<OutputFile>;
}

/** Prefix of spool files: outputs held for one call. */
export const SPOOL_PREFIX = "output-";

/**
 * A sink writing stored outputs (`spill = true`) into `store`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BlobStore } from "../blobs/blob_store.ts";
 * import { blobSink } from "./output_sink.ts";
 * const sink = blobSink(new BlobStore(await Deno.makeTempDir()), 1024);
 * const file = await sink.open();
 * await file.write(new TextEncoder().encode("lines"));
 * const done = await file.finish("exit code 1\n");
 * assert.equal(await Deno.readTextFile(done.path), "exit code 1\nlines");
 * assert.equal(done.temporary, false);
 * ```
 */
export function blobSink(store: BlobStore, windowBytes: number): OutputSink {
  return {
    windowBytes,
    open: async () => {
      let writer = await store.writer();
      const file: OutputFile = {
        write: (bytes) => writer.write(bytes),
        finish: async (prefix = "") => {
          if (prefix !== "") writer = await withPrefix(writer, prefix, () => store.writer());
          const blob = await writer.finish();
          return { path: blob.path, ref: blob.ref, temporary: false };
        },
        abort: () => writer.abort(),
      };
      return file;
    },
  };
}

/** A blob writer holding `prefix` and then what `old` holds; `old` is dropped. */
async function withPrefix(
  old: BlobWriter,
  prefix: string,
  open: () => Promise<BlobWriter>,
): Promise<BlobWriter> {
  const next = await open();
  try {
    await next.writeText(prefix);
    await copyFile(old.temp, (bytes) => next.write(bytes));
  } catch (error) {
    await next.abort();
    throw error;
  } finally {
    await old.abort();
  }
  return next;
}

/**
 * A sink writing spool files (mode 0600) into `dir`, created on first use.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { spoolSink } from "./output_sink.ts";
 * const sink = spoolSink(await Deno.makeTempDir(), 1024);
 * const file = await sink.open();
 * await file.write(new TextEncoder().encode("lines"));
 * const done = await file.finish();
 * assert.equal(await Deno.readTextFile(done.path), "lines");
 * assert.equal(done.temporary, true);
 * ```
 */
export function spoolSink(dir: string, windowBytes: number): OutputSink {
  return {
    windowBytes,
    open: async () => {
      await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
      const create = async () => {
        const path = join(dir, `${SPOOL_PREFIX}${crypto.randomUUID()}.txt`);
        return { path, file: await Deno.open(path, { write: true, createNew: true, mode: 0o600 }) };
      };
      let spool = await create();
      let open = true;
      const close = () => {
        if (open) spool.file.close();
        open = false;
      };
      const file: OutputFile = {
        write: async (bytes) => {
          for (let at = 0; at < bytes.length;) at += await spool.file.write(bytes.subarray(at));
        },
        finish: async (prefix = "") => {
          close();
          if (prefix === "") return { path: spool.path, temporary: true };
          const old = spool.path;
          spool = await create();
          open = true;
          try {
            await file.write(new TextEncoder().encode(prefix));
            await copyFile(old, file.write);
          } finally {
            close();
            await Deno.remove(old).catch(() => {});
          }
          return { path: spool.path, temporary: true };
        },
        abort: async () => {
          close();
          await Deno.remove(spool.path).catch(() => {});
        },
      };
      return file;
    },
  };
}

/** Streams file `path` into `write`, a chunk at a time. */
async function copyFile(path: string, write: (bytes: Uint8Array) => Promise<void>): Promise<void> {
  using file = await Deno.open(path, { read: true });
  const buffer = new Uint8Array(1 << 20);
  for (;;) {
    const read = await file.read(buffer);
    if (read === null) return;
    await write(buffer.subarray(0, read));
  }
}
