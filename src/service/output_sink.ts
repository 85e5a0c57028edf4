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
import type { BlobStore } from "../blobs/blob_store.ts";

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
   * The bytes written so far, a chunk at a time (one buffer, reused: copy
   * what you keep). For an output that becomes part of another.
   */
  read(): AsyncGenerator<Uint8Array>;
  /** Makes the file final. */
  finish(): Promise<FinishedOutput>;
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
 * const done = await file.finish();
 * assert.equal(await Deno.readTextFile(done.path), "lines");
 * assert.equal(done.temporary, false);
 * ```
 */
export function blobSink(store: BlobStore, windowBytes: number): OutputSink {
  return {
    windowBytes,
    open: async () => {
      const writer = await store.writer();
      return {
        write: (bytes) => writer.write(bytes),
        read: () => readChunks(writer.temp),
        finish: async () => {
          const blob = await writer.finish();
          return { path: blob.path, ref: blob.ref, temporary: false };
        },
        abort: () => writer.abort(),
      };
    },
  };
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
      const path = join(dir, `${SPOOL_PREFIX}${crypto.randomUUID()}.txt`);
      const spool = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
      let open = true;
      const close = () => {
        if (open) spool.close();
        open = false;
      };
      return {
        write: async (bytes) => {
          for (let at = 0; at < bytes.length;) at += await spool.write(bytes.subarray(at));
        },
        read: () => readChunks(path),
        finish: () => {
          close();
          return Promise.resolve({ path, temporary: true });
        },
        abort: async () => {
          close();
          await Deno.remove(path).catch(() => {});
        },
      };
    },
  };
}

/** The bytes of file `path`, 64 KiB at a time (as from a pipe) through one buffer. */
async function* readChunks(path: string): AsyncGenerator<Uint8Array> {
  using file = await Deno.open(path, { read: true });
  const buffer = new Uint8Array(64 * 1024);
  for (;;) {
    const read = await file.read(buffer);
    if (read === null) return;
    yield buffer.subarray(0, read);
  }
}
