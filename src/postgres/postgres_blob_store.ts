/**
 * Spilled outputs and payloads in PostgreSQL, beside the conversations:
 * each blob is cut into chunks of {@linkcode BLOB_CHUNK_BYTES} (1 MiB),
 * one row each in `spillway_blob_chunks` with the SHA-256 of its bytes,
 * and published by one row in `spillway_blobs` naming its reference, its
 * size and the upload its chunks belong to. Each chunk is committed as it
 * is written (memory stays flat, whatever the size), and the blob row only
 * after the last one: a blob is either absent or whole, and it is durable
 * before the call that produced it parks, so before any reference to it
 * is recorded. The same bytes twice are one blob (the second upload is
 * dropped and the blob touched).
 *
 * Every chunk read is checked against its digest, and a whole read
 * against the blob's reference: a damaged row is an error, never text
 * handed to an assistant.
 *
 * @module
 */

import { createHash, type Hash } from "node:crypto";
import type { BlobRef } from "../blobs/blob_ref.ts";
import type {
  BlobGarbage,
  BlobInfo,
  BlobStore,
  BlobWriter,
  CollectOptions,
  FinishedBlob,
  StoredBlob,
} from "../blobs/blob_store.ts";
import { damaged } from "../blobs/file_blob_store.ts";
import { writeTextSlices, writeWhole } from "../blobs/_write_text.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import type { PostgresDatabase } from "./postgres_database.ts";

/** The size of a blob's chunks (its last one may be shorter): 1 MiB. */
export const BLOB_CHUNK_BYTES = 1 << 20;

const digestOf = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest();

interface BlobRow {
  readonly bytes: string;
  readonly chunk_bytes: number;
  readonly upload: string;
}

/** A blob being uploaded, a chunk at a time. */
class PostgresBlobWriter implements BlobWriter {
  readonly #store: PostgresBlobStore;
  readonly #db: PostgresDatabase;
  readonly #upload = crypto.randomUUID();
  readonly #buffer = new Uint8Array(BLOB_CHUNK_BYTES);
  readonly #hash: Hash | undefined;
  readonly #ref: BlobRef | undefined;
  #filled = 0;
  #chunks = 0;
  #bytes = 0;
  #done = false;

  constructor(store: PostgresBlobStore, db: PostgresDatabase, ref?: BlobRef) {
    this.#store = store;
    this.#db = db;
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
      `store ${this.#store.describe(ref)}`,
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
        `could not store ${this.#store.describe(ref)}: its chunks were removed while it was ` +
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
      () =>
        this.#db.sql`insert into spillway_blob_chunks (upload, seq, digest, data)
        values (${this.#upload}::uuid, ${seq}, ${digestOf(data)}, ${data})`,
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

/**
 * Blobs in one PostgreSQL database.
 *
 * @example
 * ```ts ignore
 * const store = new PostgresBlobStore(db);
 * const { ref } = await store.put("a long test log");
 * const page = await store.readRange(ref, 0, 6); // "a long", checked against its chunk's digest
 * ```
 */
export class PostgresBlobStore implements BlobStore {
  readonly #db: PostgresDatabase;

  /** @param db the database (its schema is brought up to date on first use) */
  constructor(db: PostgresDatabase) {
    this.#db = db;
  }

  /** The database. */
  get location(): string {
    return this.#db.shown;
  }

  /** `<database>/blobs/<ref>`. */
  describe(ref: BlobRef): string {
    return `${this.#db.shown}/blobs/${ref}`;
  }

  async writer(ref?: BlobRef): Promise<BlobWriter> {
    await this.#db.ready();
    return new PostgresBlobWriter(this, this.#db, ref);
  }

  async put(text: string): Promise<BlobInfo> {
    // Hashed first: text stored already is only touched, never uploaded again.
    const hash = createHash("sha256");
    await writeTextSlices(text, (slice) => {
      hash.update(slice);
      return Promise.resolve();
    });
    const ref: BlobRef = `sha256:${hash.digest("hex")}`;
    return await this.#touch(ref) ??
      await writeWhole(this.writer(ref), (writer) => writer.writeText(text));
  }

  async putHashed(bytes: Uint8Array, ref: BlobRef): Promise<BlobInfo> {
    return await this.#touch(ref) ??
      await writeWhole(this.writer(ref), (writer) => writer.write(bytes));
  }

  async stat(ref: BlobRef): Promise<BlobInfo | undefined> {
    const row = await this.#row(ref);
    return row === undefined ? undefined : { ref, bytes: Number(row.bytes) };
  }

  async readRange(
    ref: BlobRef,
    start: number,
    end: number,
  ): Promise<{ bytes: Uint8Array; size: number } | undefined> {
    const row = await this.#row(ref);
    if (row === undefined) return undefined;
    const size = Number(row.bytes);
    const from = Math.min(Math.max(0, start), size);
    const to = Math.min(Math.max(from, end), size);
    if (to === from) return { bytes: new Uint8Array(), size };
    const first = Math.floor(from / row.chunk_bytes);
    const last = Math.floor((to - 1) / row.chunk_bytes);
    const chunks = await this.#chunkRows(ref, row, first, last);
    const out = new Uint8Array(to - from);
    for (const [i, data] of chunks.entries()) {
      const base = (first + i) * row.chunk_bytes;
      const lo = Math.max(from, base) - base;
      const hi = Math.min(to, base + data.length) - base;
      out.set(data.subarray(lo, hi), base + lo - from);
    }
    return { bytes: out, size };
  }

  async chunks(ref: BlobRef): Promise<AsyncIterable<Uint8Array> | undefined> {
    const row = await this.#row(ref);
    if (row === undefined) return undefined;
    const count = Math.ceil(Number(row.bytes) / row.chunk_bytes);
    const read = (seq: number) => this.#chunkRows(ref, row, seq, seq);
    const where = this.describe(ref);
    return (async function* () {
      const hash = createHash("sha256");
      for (let seq = 0; seq < count; seq++) {
        const [data] = await read(seq);
        hash.update(data!);
        if (seq === count - 1 && `sha256:${hash.digest("hex")}` !== ref) {
          throw damaged(ref, where);
        }
        yield data!;
      }
      if (count === 0 && `sha256:${hash.digest("hex")}` !== ref) throw damaged(ref, where);
    })();
  }

  async list(): Promise<StoredBlob[]> {
    await this.#db.ready();
    const rows = await this.#db.call(
      `list the stored outputs of ${this.#db.shown}`,
      () =>
        this.#db.sql<{ ref: BlobRef; bytes: string; modified: Date }[]>`
        select ref, bytes::text, touched_at as modified from spillway_blobs order by ref`,
    );
    return rows.map((row) => ({ ref: row.ref, bytes: Number(row.bytes), modified: row.modified }));
  }

  async collect(
    referenced: ReadonlySet<BlobRef>,
    options: CollectOptions,
  ): Promise<BlobGarbage> {
    await this.#db.ready();
    const sql = this.#db.sql;
    const refs = [...referenced];
    const before = options.keepSince;
    return await this.#db.call(`collect the stored outputs of ${this.#db.shown}`, async () => {
      const [total] = await sql<{ n: number }[]>`select count(*)::int as n from spillway_blobs`;
      const orphans = sql`from spillway_blob_chunks c
        where c.written_at < ${before}
          and not exists (select 1 from spillway_blobs b where b.upload = c.upload)`;
      if (options.dryRun) {
        const removed = await sql<{ ref: BlobRef; bytes: string }[]>`
          select ref, bytes::text from spillway_blobs
          where touched_at < ${before} and not (ref = any (${refs}::text[])) order by ref`;
        const [unfinished] = await sql<{ n: number }[]>`
          select count(distinct c.upload)::int as n ${orphans}`;
        return {
          removed: removed.map((r) => ({ ref: r.ref, bytes: Number(r.bytes) })),
          kept: (total?.n ?? 0) - removed.length,
          unfinished: unfinished?.n ?? 0,
        };
      }
      const removed = await sql<{ ref: BlobRef; bytes: string; upload: string }[]>`
        delete from spillway_blobs
        where touched_at < ${before} and not (ref = any (${refs}::text[]))
        returning ref, bytes::text, upload::text`;
      if (removed.length > 0) {
        await sql`delete from spillway_blob_chunks
          where upload = any (${removed.map((r) => r.upload)}::uuid[])`;
      }
      const unfinished = await sql<{ upload: string }[]>`
        delete ${orphans} returning c.upload::text as upload`;
      return {
        removed: removed.map((r) => ({ ref: r.ref, bytes: Number(r.bytes) }))
          .sort((a, b) => a.ref < b.ref ? -1 : 1),
        kept: (total?.n ?? 0) - removed.length,
        unfinished: new Set(unfinished.map((r) => r.upload)).size,
      };
    });
  }

  /** Marks blob `ref` as just reused; its facts, or `undefined` when there is none. */
  async #touch(ref: BlobRef): Promise<BlobInfo | undefined> {
    await this.#db.ready();
    const [row] = await this.#db.call(
      `store ${this.describe(ref)}`,
      () =>
        this.#db.sql<{ bytes: string }[]>`
        update spillway_blobs set touched_at = now() where ref = ${ref} returning bytes::text`,
    );
    return row === undefined ? undefined : { ref, bytes: Number(row.bytes) };
  }

  async #row(ref: BlobRef): Promise<BlobRow | undefined> {
    await this.#db.ready();
    const [row] = await this.#db.call(`read ${this.describe(ref)}`, () =>
      this.#db.sql<BlobRow[]>`
        select bytes::text, chunk_bytes, upload::text from spillway_blobs where ref = ${ref}`);
    return row;
  }

  /** Chunks `first` to `last` of a blob, each checked against its digest. */
  async #chunkRows(
    ref: BlobRef,
    row: BlobRow,
    first: number,
    last: number,
  ): Promise<Uint8Array[]> {
    const rows = await this.#db.call(
      `read ${this.describe(ref)}`,
      () =>
        this.#db.sql<{ seq: number; digest: Uint8Array; data: Uint8Array }[]>`
        select seq, digest, data from spillway_blob_chunks
        where upload = ${row.upload}::uuid and seq between ${first} and ${last} order by seq`,
    );
    const where = this.describe(ref);
    for (let seq = first; seq <= last; seq++) {
      const chunk = rows[seq - first];
      if (chunk?.seq !== seq) throw damaged(ref, where, `: chunk ${seq} is missing`);
      if (!sameBytes(digestOf(chunk.data), chunk.digest)) {
        throw damaged(ref, where, ` (chunk ${seq})`);
      }
    }
    return rows.map((chunk) => chunk.data);
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
