/**
 * Private helper of the PostgreSQL blob store: a blob being uploaded, a
 * chunk at a time. Each chunk is committed as it fills (one `COPY`
 * statement), the blob row only after the last one.
 *
 * @module
 */

import { createHash, type Hash } from "node:crypto";
import type { BlobRef } from "../blobs/blob_ref.ts";
import type { BlobWriter, FinishedBlob } from "../blobs/blob_store.ts";
import { writeTextSlices } from "../blobs/_write_text.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import { BLOB_CHUNK_BYTES, copyChunk } from "./_blob_chunks.ts";
import type { PostgresDatabase } from "./postgres_database.ts";

/** A blob being uploaded, a chunk at a time. */
export class PostgresBlobWriter implements BlobWriter {
  readonly #db: PostgresDatabase;
  readonly #describe: (ref: BlobRef) => string;
  readonly #upload = crypto.randomUUID();
  readonly #buffer = new Uint8Array(BLOB_CHUNK_BYTES);
  readonly #hash: Hash | undefined;
  readonly #ref: BlobRef | undefined;
  #filled = 0;
  #chunks = 0;
  #bytes = 0;
  #done = false;

  /**
   * @param describe where blob `ref` is, for people
   * @param ref the blob's reference when its bytes were hashed already
   */
  constructor(db: PostgresDatabase, describe: (ref: BlobRef) => string, ref?: BlobRef) {
    this.#db = db;
    this.#describe = describe;
    this.#ref = ref;
    this.#hash = ref === undefined ? createHash("sha256") : undefined;
  }

  get bytes(): number {
    return this.#bytes;
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.#done) throw new TypeError("the blob is already finished");
    this.#hash?.update(chunk);
    for (let at = 0; at < chunk.length;) {
      const taken = Math.min(chunk.length - at, BLOB_CHUNK_BYTES - this.#filled);
      this.#buffer.set(chunk.subarray(at, at + taken), this.#filled);
      this.#filled += taken;
      at += taken;
      if (this.#filled === BLOB_CHUNK_BYTES) await this.#flushChunk();
    }
    this.#bytes += chunk.length;
  }

  writeText(text: string): Promise<void> {
    return writeTextSlices(text, (bytes) => this.write(bytes));
  }

  async finish(): Promise<FinishedBlob> {
    if (this.#done) throw new TypeError("the blob is already finished");
    if (this.#filled > 0) await this.#flushChunk();
    this.#done = true;
    const ref: BlobRef = this.#ref ?? `sha256:${this.#hash?.digest("hex")}`;
    const sql = this.#db.sql;
    const [row] = await this.#db.call(
      `store ${this.#describe(ref)}`,
      () =>
        sql<{ upload: string }[]>`
        insert into spillway_blobs (ref, upload, bytes, chunk_bytes)
        select ${ref}, ${this.#upload}::uuid, ${this.#bytes}, ${BLOB_CHUNK_BYTES}
        where (select count(*) from spillway_blob_chunks where upload = ${this.#upload}::uuid)
          = ${this.#chunks}
        on conflict (ref) do update set touched_at = now()
        returning upload::text as upload`,
    );
    if (row === undefined) {
      throw new SpillwayError(
        "store_failed",
        `could not store ${this.#describe(ref)}: its chunks were removed while it was ` +
          `written (a collection ran during an upload that took longer than the grace period)`,
        { ref },
      );
    }
    // The same bytes were stored already: that blob stays, this upload goes.
    if (row.upload !== this.#upload) await this.#dropChunks();
    return { ref, bytes: this.#bytes };
  }

  async abort(): Promise<void> {
    if (this.#done) return;
    this.#done = true;
    await this.#dropChunks();
  }

  async #flushChunk(): Promise<void> {
    const data = this.#buffer.subarray(0, this.#filled);
    const seq = this.#chunks;
    await this.#db.call(
      `store a chunk of a stored output in ${this.#db.shown}`,
      () => copyChunk(this.#db.sql, this.#upload, seq, data),
    );
    this.#chunks++;
    this.#filled = 0;
  }

  async #dropChunks(): Promise<void> {
    // Best effort: a collection removes what is left.
    await this.#db.call(
      "drop an upload",
      () => this.#db.sql`delete from spillway_blob_chunks where upload = ${this.#upload}::uuid`,
    )
      .catch(() => {});
  }
}
