/**
 * The content-addressed blob store that keeps tool outputs outside the
 * stream (`spill = true`): `<workspace>/blobs/<sha256 hex>`, each blob the
 * exact UTF-8 bytes of one raw output. A blob is written once, to a
 * temporary file that is fsynced and renamed into place, then the directory
 * is fsynced: a blob is either absent or complete and durable, never torn.
 * The same output twice is one blob.
 *
 * @module
 */

import { createHash, type Hash } from "node:crypto";
import { join } from "node:path";
import { blobDigest, type BlobRef, isBlobRef } from "./blob_ref.ts";
import { syncDirectory } from "./_sync_directory.ts";

/** A stored blob. */
export interface BlobInfo {
  /** Its reference, `sha256:<hex>`. */
  readonly ref: BlobRef;
  /** Its size in bytes. */
  readonly bytes: number;
  /** Its file. */
  readonly path: string;
}

/** Prefix of the temporary files blobs are written to before they are renamed into place. */
export const BLOB_TEMP_PREFIX = ".tmp-";

/** Text is encoded in slices of this many UTF-16 units: the whole text is never encoded at once. */
const ENCODE_UNITS = 1 << 20;

/**
 * A blob being written: chunks go to a temporary file while their hash is
 * computed; {@linkcode BlobWriter.finish} makes it durable under its name.
 */
export class BlobWriter {
  readonly #store: BlobStore;
  readonly #file: Deno.FsFile;
  /** The temporary file the bytes go to until {@linkcode finish}. */
  readonly temp: string;
  /** Hashes the chunks, unless the blob's reference is known already. */
  readonly #hash: Hash | undefined;
  readonly #ref: BlobRef | undefined;
  #bytes = 0;
  #done = false;

  /** Use {@linkcode BlobStore.writer}. */
  constructor(store: BlobStore, file: Deno.FsFile, temp: string, ref?: BlobRef) {
    this.#store = store;
    this.#file = file;
    this.temp = temp;
    this.#ref = ref;
    this.#hash = ref === undefined ? createHash("sha256") : undefined;
  }

  /** Bytes written so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Appends `chunk` (all of it: short writes are retried). */
  async write(chunk: Uint8Array): Promise<void> {
    if (this.#done) throw new TypeError("the blob is already finished");
    this.#hash?.update(chunk);
    for (let written = 0; written < chunk.length;) {
      written += await this.#file.write(chunk.subarray(written));
    }
    this.#bytes += chunk.length;
  }

  /** Appends `text` as UTF-8, a slice at a time (lone surrogates become U+FFFD). */
  async writeText(text: string): Promise<void> {
    const encoder = new TextEncoder();
    for (let at = 0; at < text.length;) {
      // Never end a slice between the halves of a surrogate pair.
      let end = Math.min(at + ENCODE_UNITS, text.length);
      const last = text.charCodeAt(end - 1);
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += 1;
      await this.write(encoder.encode(text.slice(at, end)));
      at = end;
    }
  }

  /**
   * Makes the blob durable under its name: fsync, rename, fsync the
   * directory. If a blob with these bytes exists already, the temporary file
   * is dropped and the existing blob is kept (and touched, so that a
   * collection running meanwhile treats it as new).
   */
  async finish(): Promise<BlobInfo> {
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
      await Deno.remove(this.temp);
      const now = new Date();
      await Deno.utime(path, now, now);
      return existing;
    }
    await Deno.rename(this.temp, path);
    await syncDirectory(this.#store.dir);
    return { ref, bytes: this.#bytes, path };
  }

  /** Drops the blob: closes and removes the temporary file. Idempotent. */
  async abort(): Promise<void> {
    if (this.#done) return;
    this.#done = true;
    this.#file.close();
    await Deno.remove(this.temp).catch(() => {});
  }
}

/**
 * Blobs under one directory.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BlobStore } from "./blob_store.ts";
 * const store = new BlobStore(await Deno.makeTempDir());
 * const blob = await store.put("hello");
 * assert.equal(blob.ref, "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
 * assert.equal((await store.put("hello")).path, blob.path);
 * assert.equal(await Deno.readTextFile(blob.path), "hello");
 * ```
 */
export class BlobStore {
  /** The directory holding the blobs. */
  readonly dir: string;
  #ready: Promise<void> | undefined;

  /** @param dir the blob directory (created, and made durable, on first write) */
  constructor(dir: string) {
    this.dir = dir;
  }

  /** The file of blob `ref` (whether it exists or not). */
  path(ref: BlobRef): string {
    return join(this.dir, blobDigest(ref));
  }

  /**
   * Starts writing a blob whose content is not known yet (streamed output).
   *
   * @param ref the blob's reference when the caller has hashed its bytes
   *   already (they are then not hashed again); default: computed from the
   *   bytes written
   */
  async writer(ref?: BlobRef): Promise<BlobWriter> {
    await this.#ensureDir();
    const temp = join(this.dir, `${BLOB_TEMP_PREFIX}${crypto.randomUUID()}`);
    // Tool output can hold secrets: readable by its owner only, like full-result files.
    const file = await Deno.open(temp, { write: true, createNew: true, mode: 0o600 });
    return new BlobWriter(this, file, temp, ref);
  }

  /** Stores `text` (as UTF-8) durably; the same text twice is one blob. */
  put(text: string): Promise<BlobInfo> {
    return this.#whole(this.writer(), (writer) => writer.writeText(text));
  }

  /**
   * Stores `bytes` durably as blob `ref`, which the caller computed from
   * these very bytes (`sha256:` and their hex SHA-256): they are not hashed
   * again. The same bytes twice are one blob.
   */
  putHashed(bytes: Uint8Array, ref: BlobRef): Promise<BlobInfo> {
    return this.#whole(this.writer(ref), (writer) => writer.write(bytes));
  }

  /** A blob written at once: nothing is left behind when writing it fails. */
  async #whole(
    opened: Promise<BlobWriter>,
    write: (writer: BlobWriter) => Promise<void>,
  ): Promise<BlobInfo> {
    const writer = await opened;
    try {
      await write(writer);
      return await writer.finish();
    } catch (error) {
      await writer.abort();
      throw error;
    }
  }

  /** The blob `ref`, or `undefined` when there is none. */
  async stat(ref: BlobRef): Promise<BlobInfo | undefined> {
    const path = this.path(ref);
    try {
      const info = await Deno.stat(path);
      return info.isFile ? { ref, bytes: info.size, path } : undefined;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    }
  }

  /** Opens blob `ref` for reading, or returns `undefined` when there is none. */
  async open(ref: BlobRef): Promise<Deno.FsFile | undefined> {
    try {
      return await Deno.open(this.path(ref), { read: true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    }
  }

  /** Every blob, with when it was last written or reused (temporary files excluded). */
  async list(): Promise<(BlobInfo & { readonly modified: Date })[]> {
    const blobs: (BlobInfo & { readonly modified: Date })[] = [];
    try {
      for await (const entry of Deno.readDir(this.dir)) {
        const ref = `sha256:${entry.name}`;
        if (!entry.isFile || !isBlobRef(ref)) continue;
        const path = join(this.dir, entry.name);
        const info = await Deno.stat(path);
        blobs.push({ ref, bytes: info.size, path, modified: info.mtime ?? new Date(0) });
      }
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return [];
      throw error;
    }
    return blobs.sort((a, b) => a.ref < b.ref ? -1 : 1);
  }

  #ensureDir(): Promise<void> {
    this.#ready ??= (async () => {
      const parent = join(this.dir, "..");
      let created = false;
      try {
        await Deno.mkdir(this.dir, { mode: 0o700 });
        created = true;
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) {
          await Deno.mkdir(this.dir, { recursive: true, mode: 0o700 });
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
