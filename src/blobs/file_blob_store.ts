/**
 * The blob store of one machine: `<workspace>/blobs/<sha256 hex>`, each
 * blob the exact bytes of one output or payload. A blob is written once,
 * to a temporary file that is fsynced and renamed into place, then the
 * directory is fsynced: a blob is either absent or complete and durable,
 * never torn. Whole reads are checked against the blob's name; ranges are
 * read as the file holds them (checking one would mean hashing the whole
 * file).
 *
 * @module
 */

import { createHash, type Hash } from "node:crypto";
import { join } from "node:path";
import { SpillwayError } from "../errors/spillway_error.ts";
import { readFull } from "../files/read_full.ts";
import { blobDigest, type BlobRef, isBlobRef } from "./blob_ref.ts";
import type {
  BlobGarbage,
  BlobInfo,
  BlobStore,
  BlobWriter,
  CollectOptions,
  FinishedBlob,
  StoredBlob,
} from "./blob_store.ts";
import { removeStaleFiles } from "./remove_stale_files.ts";
import { syncDirectory } from "./_sync_directory.ts";
import { writeTextSlices, writeWhole } from "./_write_text.ts";
import * as files from "../platform/files.ts";
import type { FileHandle } from "../platform/file_handle.ts";
import { isAlreadyExists, isNotFound } from "../platform/file_errors.ts";

/** Prefix of the temporary files blobs are written to before they are renamed into place. */
export const BLOB_TEMP_PREFIX = ".tmp-";

/** Whole blobs are read (and hashed) in chunks of this size. */
const READ_CHUNK_BYTES = 1 << 20;

/** A blob being written to a temporary file of a {@linkcode FileBlobStore} (use its `writer()`). */
export class FileBlobWriter implements BlobWriter {
  readonly #store: FileBlobStore;
  readonly #file: FileHandle;
  readonly localPath: string;
  /** Hashes the chunks, unless the blob's reference is known already. */
  readonly #hash: Hash | undefined;
  readonly #ref: BlobRef | undefined;
  #bytes = 0;
  #done = false;

  constructor(store: FileBlobStore, file: FileHandle, temp: string, ref?: BlobRef) {
    this.#store = store;
    this.#file = file;
    this.localPath = temp;
    this.#ref = ref;
    this.#hash = ref === undefined ? createHash("sha256") : undefined;
  }

  get bytes(): number {
    return this.#bytes;
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.#done) throw new TypeError("the blob is already finished");
    this.#hash?.update(chunk);
    for (let written = 0; written < chunk.length;) {
      written += await this.#file.write(chunk.subarray(written));
    }
    this.#bytes += chunk.length;
  }

  writeText(text: string): Promise<void> {
    return writeTextSlices(text, (bytes) => this.write(bytes));
  }

  async finish(): Promise<FinishedBlob> {
    if (this.#done) throw new TypeError("the blob is already finished");
    this.#done = true;
    const ref: BlobRef = this.#ref ?? `sha256:${this.#hash?.digest("hex")}`;
    const path = this.#store.path(ref);
    try {
      await this.#file.sync();
    } finally {
      this.#file.close();
    }
    const existing = await this.#store.stat(ref);
    if (existing !== undefined && existing.bytes === this.#bytes) {
      await files.remove(this.localPath);
      const now = new Date();
      await files.utime(path, now, now);
      return { ...existing, localPath: path };
    }
    await files.rename(this.localPath, path);
    await syncDirectory(this.#store.dir);
    return { ref, bytes: this.#bytes, localPath: path };
  }

  async abort(): Promise<void> {
    if (this.#done) return;
    this.#done = true;
    this.#file.close();
    await files.remove(this.localPath).catch(() => {});
  }
}

/**
 * Blobs under one directory.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileBlobStore } from "./file_blob_store.ts";
 * const store = new FileBlobStore(await Deno.makeTempDir());
 * const blob = await store.put("hello");
 * assert.equal(blob.ref, "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
 * assert.equal(await Deno.readTextFile(store.path(blob.ref)), "hello");
 * ```
 */
export class FileBlobStore implements BlobStore {
  /** The directory holding the blobs. */
  readonly dir: string;
  #ready: Promise<void> | undefined;

  /** @param dir the blob directory (created, and made durable, on first write) */
  constructor(dir: string) {
    this.dir = dir;
  }

  /** The directory. */
  get location(): string {
    return this.dir;
  }

  /** The file of blob `ref` (whether it exists or not). */
  path(ref: BlobRef): string {
    return join(this.dir, blobDigest(ref));
  }

  /** The file of blob `ref`. */
  describe(ref: BlobRef): string {
    return this.path(ref);
  }

  async writer(ref?: BlobRef): Promise<BlobWriter> {
    await this.#ensureDir();
    const temp = join(this.dir, `${BLOB_TEMP_PREFIX}${crypto.randomUUID()}`);
    // Tool output can hold secrets: readable by its owner only, like full-result files.
    const file = await files.open(temp, { write: true, createNew: true, mode: 0o600 });
    return new FileBlobWriter(this, file, temp, ref);
  }

  put(text: string): Promise<BlobInfo> {
    return writeWhole(this.writer(), (writer) => writer.writeText(text));
  }

  putHashed(bytes: Uint8Array, ref: BlobRef): Promise<BlobInfo> {
    return writeWhole(this.writer(ref), (writer) => writer.write(bytes));
  }

  async stat(ref: BlobRef): Promise<BlobInfo | undefined> {
    try {
      const info = await files.stat(this.path(ref));
      return info.isFile ? { ref, bytes: info.size } : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async readRange(
    ref: BlobRef,
    start: number,
    end: number,
  ): Promise<{ bytes: Uint8Array; size: number } | undefined> {
    const file = await this.#open(ref);
    if (file === undefined) return undefined;
    using _closed = file;
    const size = (await file.stat()).size;
    const from = Math.min(Math.max(0, start), size);
    const to = Math.min(Math.max(from, end), size);
    await file.seek(from, 0);
    const buffer = new Uint8Array(to - from);
    return { bytes: buffer.subarray(0, await readFull(file, buffer)), size };
  }

  async chunks(ref: BlobRef): Promise<AsyncIterable<Uint8Array> | undefined> {
    if (await this.stat(ref) === undefined) return undefined;
    const where = this.path(ref);
    return (async function* () {
      // Opened once read from: an iterator never started holds no file.
      using file = await files.open(where, { read: true });
      const hash = createHash("sha256");
      // Two buffers in turn: the next chunk is read before the current one is
      // handed out, so the last one goes out only once the hash is checked.
      const buffers = [new Uint8Array(READ_CHUNK_BYTES), new Uint8Array(READ_CHUNK_BYTES)];
      let turn = 0;
      let current = buffers[0]!.subarray(0, await readFull(file, buffers[0]!));
      hash.update(current);
      for (;;) {
        const next = buffers[1 - turn]!;
        const read = current.length < READ_CHUNK_BYTES ? 0 : await readFull(file, next);
        if (read === 0) {
          if (`sha256:${hash.digest("hex")}` !== ref) throw damaged(ref, where);
          if (current.length > 0) yield current;
          return;
        }
        yield current;
        turn = 1 - turn;
        current = next.subarray(0, read);
        hash.update(current);
      }
    })();
  }

  async list(): Promise<StoredBlob[]> {
    const blobs: StoredBlob[] = [];
    try {
      for await (const entry of files.readDir(this.dir)) {
        const ref = `sha256:${entry.name}`;
        if (!entry.isFile || !isBlobRef(ref)) continue;
        const info = await files.stat(join(this.dir, entry.name));
        blobs.push({ ref, bytes: info.size, modified: info.mtime ?? new Date(0) });
      }
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
    return blobs.sort((a, b) => a.ref < b.ref ? -1 : 1);
  }

  async collect(
    referenced: ReadonlySet<BlobRef>,
    options: CollectOptions,
  ): Promise<BlobGarbage> {
    const keepSince = options.keepSince.getTime();
    const removed: BlobInfo[] = [];
    let kept = 0;
    for (const blob of await this.list()) {
      if (referenced.has(blob.ref) || blob.modified.getTime() >= keepSince) {
        kept++;
        continue;
      }
      if (!options.dryRun) await removeIfPresent(this.path(blob.ref));
      removed.push({ ref: blob.ref, bytes: blob.bytes });
    }
    const unfinished = await removeStaleFiles(this.dir, {
      prefix: BLOB_TEMP_PREFIX,
      graceMs: 0,
      now: keepSince,
      dryRun: options.dryRun,
    });
    return { removed, kept, unfinished };
  }

  async #open(ref: BlobRef): Promise<FileHandle | undefined> {
    try {
      return await files.open(this.path(ref), { read: true });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  #ensureDir(): Promise<void> {
    this.#ready ??= (async () => {
      const parent = join(this.dir, "..");
      let created = false;
      try {
        await files.mkdir(this.dir, { mode: 0o700 });
        created = true;
      } catch (error) {
        if (!isAlreadyExists(error)) {
          await files.mkdir(this.dir, { recursive: true, mode: 0o700 });
          created = true;
        }
      }
      // A new directory's entry must be durable too, or its blobs are unreachable after a crash.
      if (created) await syncDirectory(parent);
    })().catch((error) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }
}

/** The error for a blob whose bytes do not hash to its name. */
export function damaged(ref: BlobRef, where: string, detail = ""): SpillwayError {
  return new SpillwayError(
    "store_failed",
    `stored output ${ref} is damaged: its bytes do not match its digest${detail} (${where})`,
    { ref, where },
  );
}

async function removeIfPresent(path: string): Promise<void> {
  try {
    await files.remove(path);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
