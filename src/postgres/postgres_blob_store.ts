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

import { createHash } from "node:crypto";
import type { BlobRef } from "../blobs/blob_ref.ts";
import type {
  BlobGarbage,
  BlobInfo,
  BlobStore,
  BlobWriter,
  CollectOptions,
  StoredBlob,
} from "../blobs/blob_store.ts";
import { damaged } from "../blobs/file_blob_store.ts";
import { writeTextSlices, writeWhole } from "../blobs/_write_text.ts";
import { readChunks } from "./_blob_chunks.ts";
import { PostgresBlobWriter } from "./_postgres_blob_writer.ts";
import type { PostgresDatabase } from "./postgres_database.ts";

export { BLOB_CHUNK_BYTES } from "./_blob_chunks.ts";

/** How many chunk buffers a store keeps for its range reads (1 MiB each). */
const SPARE_BUFFERS = 4;

interface BlobRow {
  readonly bytes: string;
  readonly chunk_bytes: number;
  readonly upload: string;
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
  /** Chunk buffers of range reads that ended, for the next ones. */
  readonly #spare: Uint8Array[] = [];

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
    return new PostgresBlobWriter(this.#db, (blob) => this.describe(blob), ref);
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
    const out = new Uint8Array(to - from);
    await this.#readChunks(ref, row, { first, last }, (seq, data) => {
      const base = seq * row.chunk_bytes;
      const lo = Math.max(from, base) - base;
      const hi = Math.min(to, base + data.length) - base;
      out.set(data.subarray(lo, hi), base + lo - from);
    });
    return { bytes: out, size };
  }

  async chunks(ref: BlobRef): Promise<AsyncIterable<Uint8Array> | undefined> {
    const row = await this.#row(ref);
    if (row === undefined) return undefined;
    const count = Math.ceil(Number(row.bytes) / row.chunk_bytes);
    /** Chunk `seq`, checked, in `buffer`. */
    const read = async (seq: number, buffer: Uint8Array) => {
      let chunk = buffer;
      await this.#readChunks(ref, row, { first: seq, last: seq }, (_, data) => {
        chunk = data;
      }, buffer);
      return chunk;
    };
    const where = this.describe(ref);
    return (async function* () {
      const hash = createHash("sha256");
      // One buffer, refilled: a chunk handed out may be reused once the next is asked for.
      const buffer = new Uint8Array(row.chunk_bytes);
      for (let seq = 0; seq < count; seq++) {
        const data = await read(seq, buffer);
        hash.update(data);
        if (seq === count - 1 && `sha256:${hash.digest("hex")}` !== ref) {
          throw damaged(ref, where);
        }
        yield data;
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

  /**
   * Marks blob `ref` as just reused; its facts, or `undefined` when there
   * is none. The touch commits without waiting for its WAL to reach the
   * disk (`synchronous_commit` off for this one transaction: no fsync, a
   * tenth of the time). A collection sees it at once all the same, and it
   * cannot be lost while anything durable relies on it: a conversation's
   * commit that refers to the blob comes after it in the WAL, and a
   * durable commit flushes the WAL up to itself, the touch included. A
   * crash before that commit loses the touch and the reference together.
   */
  async #touch(ref: BlobRef): Promise<BlobInfo | undefined> {
    await this.#db.ready();
    const [row] = await this.#db.call(
      `store ${this.describe(ref)}`,
      () =>
        this.#db.sql<{ bytes: string }[]>`
        update spillway_blobs set touched_at = now()
        from (select set_config('synchronous_commit', 'off', true)) as durable_later
        where ref = ${ref} returning bytes::text`,
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

  /**
   * Chunks `range.first` to `range.last` of a blob, in order, each checked
   * against its digest before `visit` sees it (in `buffer`, reused: visit
   * copies what it keeps). Without `buffer`, one of the store's spare
   * buffers: each read in flight has its own (rows arrive over several
   * socket reads, so reads at once would overwrite each other's), and only
   * a read that ended normally gives it back (one a deadline abandoned may
   * still be receiving into it).
   */
  async #readChunks(
    ref: BlobRef,
    row: BlobRow,
    range: { readonly first: number; readonly last: number },
    visit: (seq: number, data: Uint8Array) => void,
    buffer?: Uint8Array,
  ): Promise<void> {
    const where = this.describe(ref);
    const spare = this.#spare.pop();
    const into = buffer ??
      (spare !== undefined && spare.length >= row.chunk_bytes
        ? spare
        : new Uint8Array(row.chunk_bytes));
    let seq = range.first;
    await this.#db.call(
      `read ${where}`,
      () =>
        readChunks(this.#db.sql, row.upload, range, into, (chunk) => {
          if (chunk.seq !== seq) throw damaged(ref, where, `: chunk ${seq} is missing`);
          if (!chunk.intact || chunk.bytes.length !== chunkSize(row, seq)) {
            throw damaged(ref, where, ` (chunk ${seq})`);
          }
          visit(seq++, chunk.bytes);
        }),
    );
    if (buffer === undefined && this.#spare.length < SPARE_BUFFERS) this.#spare.push(into);
    if (seq <= range.last) throw damaged(ref, where, `: chunk ${seq} is missing`);
  }
}

/** The size chunk `seq` of a blob has: the chunk size, but for its last, which may be shorter. */
function chunkSize(row: BlobRow, seq: number): number {
  return Math.min(row.chunk_bytes, Number(row.bytes) - seq * row.chunk_bytes);
}
