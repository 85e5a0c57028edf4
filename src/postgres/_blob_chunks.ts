/**
 * Private helper of the PostgreSQL blob store: how a stored output's
 * chunks travel between spillway and `spillway_blob_chunks` with as little
 * garbage as postgres.js allows. It sends and receives `bytea` as hex
 * text: each 1 MiB chunk became a 2 MiB string and its copies.
 *
 * - A chunk goes in by `COPY … FROM STDIN` in PostgreSQL's binary format:
 *   its bytes as they are, in {@linkcode PIECE_BYTES} messages sent as the
 *   socket takes them (postgres.js copies each message once: small copies
 *   that die young, where one 1 MiB copy a chunk piled up).
 * - A chunk comes back in rows of {@linkcode PIECE_BYTES}, as base64 (a
 *   third larger than the bytes; hex is twice), streamed row by row,
 *   decoded natively into a buffer the reader keeps
 *   (`Uint8Array.prototype.setFromBase64`) and hashed as it comes, then
 *   checked against its digest before anyone sees it. postgres.js cannot
 *   ask for binary results, and its `COPY … TO STDOUT` leaves the
 *   connection's socket paused when a row fills the stream's buffer as it
 *   ends.
 *
 * What still piles up is the driver's: every socket read is a new buffer
 * (docs/performance.md has the measurements).
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { createHash, type Hash } from "node:crypto";
import type postgres from "postgres";

/** The size of a blob's chunks (its last one may be shorter): 1 MiB. */
export const BLOB_CHUNK_BYTES = 1 << 20;

/** `PGCOPY\n\377\r\n\0`, then no flags and no header extension. */
const COPY_HEADER = new Uint8Array([
  0x50,
  0x47,
  0x43,
  0x4f,
  0x50,
  0x59,
  0x0a,
  0xff,
  0x0d,
  0x0a,
  0x00,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
]);
/** The end of the rows: a field count of -1. */
const COPY_TRAILER = new Uint8Array([0xff, 0xff]);
/** A row's four fields before its data: upload (uuid), seq (int4), digest (bytea), data's length. */
const ROW_HEAD_BYTES = 2 + (4 + 16) + (4 + 4) + (4 + 32) + 4;

/** The SHA-256 of `bytes`. */
export const digestOf = (bytes: Uint8Array): Buffer => createHash("sha256").update(bytes).digest();

/**
 * Stores chunk `seq` of upload `upload` (one statement, so one
 * transaction). `data` must stay as it is until the promise settles.
 *
 * A known limit of postgres.js (porsager/postgres#1173): when the server
 * refuses the rows after the last one was sent, the promise does not
 * settle; callers bound it with their deadline.
 */
export async function copyChunk(
  sql: postgres.Sql,
  upload: string,
  seq: number,
  data: Uint8Array,
): Promise<void> {
  const head = new Uint8Array(COPY_HEADER.length + ROW_HEAD_BYTES);
  const view = new DataView(head.buffer);
  head.set(COPY_HEADER);
  const row = COPY_HEADER.length;
  view.setInt16(row, 4); // fields
  view.setInt32(row + 2, 16);
  head.subarray(row + 6, row + 22).setFromHex(upload.replaceAll("-", ""));
  view.setInt32(row + 22, 4);
  view.setInt32(row + 26, seq);
  view.setInt32(row + 30, 32);
  head.set(digestOf(data), row + 34);
  view.setInt32(row + 66, data.length);
  const stream = await sql`
    copy spillway_blob_chunks (upload, seq, digest, data) from stdin (format binary)`.writable();
  const done = new Promise<void>((resolve, reject) => {
    stream.once("finish", resolve);
    stream.once("error", reject);
  });
  done.catch(() => {}); // awaited below; an error before then must not go unhandled
  stream.write(head);
  for (let at = 0; at < data.length; at += PIECE_BYTES) {
    if (!stream.write(data.subarray(at, at + PIECE_BYTES))) {
      await Promise.race([new Promise((resolve) => stream.once("drain", resolve)), done]);
    }
  }
  stream.end(COPY_TRAILER);
  await done;
}

/** A chunk as read: its number, its bytes (valid until the next chunk), and whether they are whole. */
export interface ReadChunk {
  readonly seq: number;
  readonly bytes: Uint8Array;
  /** Whether its bytes hash to the digest stored with them. */
  readonly intact: boolean;
}

/**
 * The bytes of a chunk in one result row: 48 KiB, 64 KiB as base64 (a
 * multiple of 3, so only a chunk's last piece is padded). Each row, its
 * string and the socket buffers it came in are small and short-lived, so
 * V8's young-generation collections free them as they go; a whole 1 MiB
 * chunk per row was a 1.4 MiB string and as large a buffer, which only
 * pile up until a full collection.
 */
export const PIECE_BYTES = 48 * 1024;

/**
 * Chunks `first` to `last` of upload `upload`, in order, each decoded
 * into `buffer` (as large as the blob's chunks) a piece at a time while
 * it is hashed, and handed to `visit` once whole, which must copy what
 * it keeps: the next chunk overwrites it. A missing chunk is not visited;
 * one longer than `buffer` is not intact. What `visit` throws ends the
 * read (the rows still coming are drained) and is thrown.
 */
export async function readChunks(
  sql: postgres.Sql,
  upload: string,
  range: { readonly first: number; readonly last: number },
  buffer: Uint8Array,
  visit: (chunk: ReadChunk) => void,
): Promise<void> {
  let current: PartialChunk | undefined;
  let failure: { readonly error: unknown } | undefined;
  const end = () => {
    if (current === undefined || failure !== undefined) return;
    const chunk = current;
    current = undefined;
    try {
      visit({
        seq: chunk.seq,
        bytes: buffer.subarray(0, chunk.filled),
        intact: chunk.fits && chunk.filled === chunk.size &&
          chunk.hash.digest("hex") === chunk.digest,
      });
    } catch (error) {
      failure = { error };
    }
  };
  // Each chunk is read out of its table once (`data || ''` detoasts it in
  // the materialized CTE), then cut into pieces.
  await sql`
    with c as materialized (
      select seq, digest, data || ''::bytea as data from spillway_blob_chunks
      where upload = ${upload}::uuid and seq between ${range.first} and ${range.last})
    select seq, encode(digest, 'hex'), octet_length(data),
      encode(substring(data from k * ${PIECE_BYTES}::int + 1 for ${PIECE_BYTES}::int), 'base64')
    from c, generate_series(0, greatest(0, (octet_length(data) - 1) / ${PIECE_BYTES}::int)) k
    order by seq, k`.raw().forEach((row) => {
    if (failure !== undefined) return;
    const [seq, digest, length, base64] = row as unknown as (Buffer | undefined)[];
    const number = Number(text(seq));
    if (current?.seq !== number) {
      end();
      const size = Number(text(length));
      current = {
        seq: number,
        size,
        digest: text(digest),
        hash: createHash("sha256"),
        fits: size <= buffer.length,
        filled: 0,
      };
    }
    const chunk = current;
    if (!chunk.fits) return;
    const into = buffer.subarray(chunk.filled, Math.min(chunk.size, chunk.filled + PIECE_BYTES));
    try {
      const { written } = into.setFromBase64(text(base64));
      chunk.hash.update(into.subarray(0, written));
      chunk.filled += written;
    } catch {
      chunk.fits = false; // not base64: not what was stored
    }
  });
  end();
  if (failure !== undefined) throw failure.error;
}

/** A chunk whose pieces are still coming. */
interface PartialChunk {
  readonly seq: number;
  readonly size: number;
  readonly digest: string;
  readonly hash: Hash;
  /** Whether its pieces fit in the buffer and were decoded so far. */
  fits: boolean;
  filled: number;
}

/** A raw text column's characters (ASCII: digits, hex, base64). */
function text(value: Buffer | undefined): string {
  return value === undefined ? "" : value.toString("latin1");
}
