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
import * as files from "../platform/files.ts";

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
 * A sink writing stored outputs (`spill = true`) into `store`. A store of
 * local files holds the whole text in the blob's own file; any other (the
 * database) gets the chunks as they come, and a spool file in `spoolDir`
 * keeps the local copy the Host reads (the edit prompt, the terminal's
 * full-result file), removed like any spool file once the call is released.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileBlobStore } from "../blobs/file_blob_store.ts";
 * import { blobSink } from "./output_sink.ts";
 * const dir = await Deno.makeTempDir();
 * const sink = blobSink(new FileBlobStore(`${dir}/blobs`), 1024, `${dir}/spool`);
 * const file = await sink.open();
 * await file.write(new TextEncoder().encode("lines"));
 * const done = await file.finish();
 * assert.equal(await Deno.readTextFile(done.path), "lines");
 * assert.equal(done.temporary, false);
 * ```
 */
export function blobSink(store: BlobStore, windowBytes: number, spoolDir: string): OutputSink {
  return {
    windowBytes,
    open: async () => {
      const writer = await store.writer();
      const local = writer.localPath === undefined
        ? await spoolSink(spoolDir, windowBytes).open()
        : undefined;
      const localPath = writer.localPath;
      return {
        write: async (bytes) => {
          await writer.write(bytes);
          await local?.write(bytes);
        },
        read: () => local === undefined ? readChunks(localPath ?? "") : local.read(),
        finish: async () => {
          try {
            const blob = await writer.finish();
            const copy = await local?.finish();
            return {
              path: copy?.path ?? blob.localPath ?? "",
              ref: blob.ref,
              temporary: copy !== undefined,
            };
          } catch (error) {
            await local?.abort();
            throw error;
          }
        },
        abort: async () => {
          await writer.abort();
          await local?.abort();
        },
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
      await files.mkdir(dir, { recursive: true, mode: 0o700 });
      const path = join(dir, `${SPOOL_PREFIX}${crypto.randomUUID()}.txt`);
      const spool = await files.open(path, { write: true, createNew: true, mode: 0o600 });
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
          await files.remove(path).catch(() => {});
        },
      };
    },
  };
}

/** The bytes of file `path`, 64 KiB at a time (as from a pipe) through one buffer. */
async function* readChunks(path: string): AsyncGenerator<Uint8Array> {
  using file = await files.open(path, { read: true });
  const buffer = new Uint8Array(64 * 1024);
  for (;;) {
    const read = await file.read(buffer);
    if (read === null) return;
    yield buffer.subarray(0, read);
  }
}
