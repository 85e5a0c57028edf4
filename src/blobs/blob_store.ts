/**
 * The store of spilled outputs and of the payloads of non-text blocks: a
 * content-addressed store, each blob the exact bytes of one output or
 * payload, named by their SHA-256 (`sha256:<hex>`). A blob is written
 * once and is either absent or whole and durable; the same bytes twice are
 * one blob. Two implementations pass one contract suite
 * (`src/testing/blob_store_contract.ts`): files under the workspace
 * (`file_blob_store.ts`), and chunks in PostgreSQL
 * (`src/postgres/postgres_blob_store.ts`).
 *
 * Blobs are read in ranges and in chunks, never whole unless the caller
 * asks: a 1 GiB output is written, paged and searched without being held
 * (in files, in flat memory; PostgreSQL's driver adds garbage of its own,
 * docs/performance.md).
 *
 * @module
 */

import type { BlobRef } from "./blob_ref.ts";

/** A stored blob. */
export interface BlobInfo {
  /** Its reference, `sha256:<hex>`. */
  readonly ref: BlobRef;
  /** Its size in bytes. */
  readonly bytes: number;
}

/** A stored blob and when it was last written or reused. */
export interface StoredBlob extends BlobInfo {
  /** When it was last written, or reused by a store of the same bytes. */
  readonly modified: Date;
}

/** A finished blob, and the local file holding it when the store keeps files. */
export interface FinishedBlob extends BlobInfo {
  /** The blob's file, for a store of local files. */
  readonly localPath?: string;
}

/**
 * A blob being written: chunks are stored while their hash is computed;
 * {@linkcode BlobWriter.finish} makes it durable under its name.
 */
export interface BlobWriter {
  /** Bytes written so far. */
  readonly bytes: number;
  /**
   * The local file the bytes are written to, for a store of local files
   * (others keep none): what was written so far can be read back from it.
   */
  readonly localPath?: string;
  /** Appends `chunk` (all of it; `chunk` may be reused once the promise settles). */
  write(chunk: Uint8Array): Promise<void>;
  /** Appends `text` as UTF-8, a slice at a time (lone surrogates become U+FFFD). */
  writeText(text: string): Promise<void>;
  /**
   * Makes the blob durable under its name. If a blob with these bytes
   * exists already, it is kept (and touched: a collection running meanwhile
   * treats it as new) and what was written is dropped.
   */
  finish(): Promise<FinishedBlob>;
  /** Drops the blob. Idempotent. */
  abort(): Promise<void>;
}

/** What a collection removed. */
export interface BlobGarbage {
  /** The blobs removed (or, on a dry run, that would be). */
  readonly removed: readonly BlobInfo[];
  /** How many blobs were kept. */
  readonly kept: number;
  /** Writes that never finished (a crash) whose leftovers were removed (or would be). */
  readonly unfinished: number;
}

/** Options of {@linkcode BlobStore.collect}. */
export interface CollectOptions {
  /** Blobs written or reused at or after this moment are kept whatever else holds. */
  readonly keepSince: Date;
  /** Only report what would be removed. */
  readonly dryRun: boolean;
}

/** A content-addressed store of blobs. */
export interface BlobStore {
  /** Where the blobs are, for people: a folder, or a database. */
  readonly location: string;
  /**
   * Starts a blob whose content is not known yet (streamed output).
   *
   * @param ref the blob's reference when the caller has hashed its bytes
   *   already (they are then not hashed again); default: computed
   */
  writer(ref?: BlobRef): Promise<BlobWriter>;
  /** Stores `text` (as UTF-8) durably; the same text twice is one blob. */
  put(text: string): Promise<BlobInfo>;
  /**
   * Stores `bytes` durably as blob `ref`, which the caller computed from
   * these very bytes: they are not hashed again.
   */
  putHashed(bytes: Uint8Array, ref: BlobRef): Promise<BlobInfo>;
  /** The blob `ref`, or `undefined` when there is none. */
  stat(ref: BlobRef): Promise<BlobInfo | undefined>;
  /**
   * Bytes `start` (inclusive) to `end` (exclusive) of blob `ref`, clamped
   * at its end, and its size; `undefined` when there is no such blob.
   *
   * @throws {SpillwayError} `store_failed` when what was read is damaged
   *   (a store that checks digests on ranges: PostgreSQL)
   */
  readRange(
    ref: BlobRef,
    start: number,
    end: number,
  ): Promise<{ readonly bytes: Uint8Array; readonly size: number } | undefined>;
  /**
   * The whole blob, a chunk at a time (each chunk may be reused once the
   * next is asked for), checked against its reference: a blob whose bytes
   * do not hash to it throws before its last chunk is handed out.
   * `undefined` when there is no such blob.
   */
  chunks(ref: BlobRef): Promise<AsyncIterable<Uint8Array> | undefined>;
  /** Every blob, by reference. */
  list(): Promise<StoredBlob[]>;
  /**
   * Removes the blobs not in `referenced` that were last written or reused
   * before `options.keepSince`, and the leftovers of writes that never
   * finished from before then.
   */
  collect(referenced: ReadonlySet<BlobRef>, options: CollectOptions): Promise<BlobGarbage>;
  /** Where blob `ref` is, for people (a file, a row). */
  describe(ref: BlobRef): string;
}
