/**
 * The PostgreSQL blob store against a real server: the blob store contract
 * suite (the one the file store passes), then what only chunks in rows
 * can show: each chunk checked by its digest on every read, pages
 * included, and an upload that dies midway leaving no blob.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { BlobRef } from "../src/blobs/blob_ref.ts";
import { readBlobPage } from "../src/blobs/read_blob_page.ts";
import { BLOB_CHUNK_BYTES, PostgresBlobStore } from "../src/postgres/postgres_blob_store.ts";
import { PostgresDatabase } from "../src/postgres/postgres_database.ts";
import { defineBlobStoreContract } from "../src/testing/blob_store_contract.ts";
import {
  PG_PASSWORD,
  pgTest,
  POSTGRES_MISSING,
  startPostgres,
  stopPostgresTest,
} from "./_postgres.ts";

interface Fresh {
  readonly store: PostgresBlobStore;
  readonly db: PostgresDatabase;
  readonly admin: import("postgres").Sql;
  close(): Promise<void>;
}

async function fresh(): Promise<Fresh> {
  const server = await startPostgres();
  const url = await server.database();
  const db = PostgresDatabase.connect({ url, password: PG_PASSWORD, shown: url });
  const admin = server.admin(new URL(url).pathname.slice(1));
  await db.ready();
  return {
    store: new PostgresBlobStore(db),
    db,
    admin,
    close: async () => {
      await admin.end();
      await db.close();
    },
  };
}

/** Flips a bit of byte `at` of blob `ref`'s chunk `seq`. */
async function damageChunk(f: Fresh, ref: BlobRef, seq: number, at = 100): Promise<void> {
  await f
    .admin`update spillway_blob_chunks set data = set_byte(data, ${at}, get_byte(data, ${at}) # 1)
    where upload = (select upload from spillway_blobs where ref = ${ref}) and seq = ${seq}`;
}

if (POSTGRES_MISSING === undefined || Deno.env.get("SPILLWAY_REQUIRE_POSTGRES") === "1") {
  defineBlobStoreContract("PostgresBlobStore", async () => {
    const f = await fresh();
    return {
      store: f.store,
      age: async (ref, ms) => {
        await f.admin`update spillway_blobs
          set touched_at = now() - ${ms / 1000} * interval '1 second' where ref = ${ref}`;
      },
      damage: (ref) => damageChunk(f, ref, 0),
      leaveUnfinished: async (ms) => {
        await f.admin`insert into spillway_blob_chunks (upload, seq, digest, data, written_at)
          values (gen_random_uuid(), 0, '\\x00', '\\x00', now() - ${
          ms / 1000
        } * interval '1 second')`;
      },
      cleanup: f.close,
    };
  });
} else {
  pgTest("PostgresBlobStore: the blob store contract", () => Promise.resolve());
}

pgTest(
  "PostgresBlobStore: a blob is 1 MiB chunks, each with its digest, and a page of a damaged chunk is refused",
  async () => {
    const f = await fresh();
    try {
      const text = "0123456789abcdef".repeat((2.5 * BLOB_CHUNK_BYTES) / 16);
      const { ref } = await f.store.put(text);
      const chunks = await f.admin`select seq, octet_length(data) as n, octet_length(digest) as d
      from spillway_blob_chunks order by seq`;
      assert.deepEqual(chunks.map((c) => [c.seq, c.n, c.d]), [
        [0, BLOB_CHUNK_BYTES, 32],
        [1, BLOB_CHUNK_BYTES, 32],
        [2, BLOB_CHUNK_BYTES / 2, 32],
      ]);
      await damageChunk(f, ref, 1);
      // A page inside chunk 0 is fine; one that touches chunk 1 is refused.
      assert.equal((await readBlobPage(f.store, ref, 16, 16))?.text, "0123456789abcdef");
      await assert.rejects(
        readBlobPage(f.store, ref, BLOB_CHUNK_BYTES - 8, 16),
        new RegExp(`stored output ${ref} is damaged: .*\\(chunk 1\\)`),
      );
    } finally {
      await f.close();
    }
  },
);

pgTest(
  "PostgresBlobStore: an upload that never finishes leaves no blob, and its chunks are collected",
  async () => {
    const f = await fresh();
    try {
      const writer = await f.store.writer();
      await writer.write(new Uint8Array(BLOB_CHUNK_BYTES + 10));
      // The writer's process dies here: its first chunk is committed, no blob row.
      assert.deepEqual(await f.store.list(), []);
      const [staged] = await f.admin`select count(*)::int as n from spillway_blob_chunks`;
      assert.equal(staged?.n, 1);
      const later = new Date(Date.now() + 60_000);
      assert.deepEqual(await f.store.collect(new Set(), { keepSince: later, dryRun: false }), {
        removed: [],
        kept: 0,
        unfinished: 1,
      });
      const [left] = await f.admin`select count(*)::int as n from spillway_blob_chunks`;
      assert.equal(left?.n, 0);
    } finally {
      await f.close();
    }
  },
);

pgTest(
  "PostgresBlobStore: ranges read at once, of one blob and of others, each get their own bytes",
  async () => {
    const f = await fresh();
    try {
      // Three blobs of 2.5 chunks, each byte a function of its blob and offset.
      const blobs = await Promise.all([1, 2, 3].map(async (k) => {
        const bytes = new Uint8Array(2.5 * BLOB_CHUNK_BYTES);
        for (let i = 0; i < bytes.length; i++) bytes[i] = (i * k + (i >> 9)) & 255;
        const writer = await f.store.writer();
        await writer.write(bytes);
        return { bytes, ref: (await writer.finish()).ref };
      }));
      const reads = [];
      for (const { bytes, ref } of blobs) {
        for (
          const [start, end] of [[0, 10], [BLOB_CHUNK_BYTES - 5, BLOB_CHUNK_BYTES + 5], [
            100_000,
            2 * BLOB_CHUNK_BYTES + 7,
          ], [2 * BLOB_CHUNK_BYTES - 1, 3 * BLOB_CHUNK_BYTES]]
        ) {
          reads.push(
            f.store.readRange(ref, start!, end!).then((read) => {
              assert.ok(read !== undefined);
              assert.ok(
                Buffer.from(read.bytes).equals(Buffer.from(bytes.subarray(start, end))),
                `${ref} [${start}, ${end})`,
              );
            }),
          );
        }
      }
      const wholes = blobs.map(async ({ bytes, ref }) => {
        const parts: Uint8Array[] = [];
        for await (const chunk of (await f.store.chunks(ref))!) parts.push(chunk.slice());
        assert.ok(Buffer.concat(parts).equals(Buffer.from(bytes)), `${ref} whole`);
      });
      await Promise.all([...reads, ...wholes]);
    } finally {
      await f.close();
    }
  },
);

pgTest(
  "PostgresBlobStore: a chunk of the wrong size is refused, even with a digest that matches it",
  async () => {
    const f = await fresh();
    try {
      const text = "0123456789abcdef".repeat((2.5 * BLOB_CHUNK_BYTES) / 16);
      const { ref } = await f.store.put(text);
      const chunk = async (seq: number, data: string) => {
        await f.admin.unsafe(
          `update spillway_blob_chunks set data = ${data}, digest = sha256(${data})
          where upload = (select upload from spillway_blobs where ref = $1) and seq = ${seq}`,
          [ref],
        );
      };
      // Chunk 1 cut short, chunk 2 (the last) grown: each hashes to its digest.
      await chunk(1, "substring(data from 1 for 1000)");
      await chunk(2, "data || '\\x0a'::bytea");
      const refused = (seq: number) =>
        new RegExp(`stored output ${ref} is damaged: .*\\(chunk ${seq}\\)`);
      assert.equal((await readBlobPage(f.store, ref, 16, 16))?.text, "0123456789abcdef");
      await assert.rejects(
        f.store.readRange(ref, BLOB_CHUNK_BYTES + 500, BLOB_CHUNK_BYTES + 600),
        refused(1),
      );
      await assert.rejects(
        f.store.readRange(ref, 2 * BLOB_CHUNK_BYTES, 2 * BLOB_CHUNK_BYTES + 10),
        refused(2),
      );
    } finally {
      await f.close();
    }
  },
);

/**
 * The WAL syncs PostgreSQL counted for `work` (`pg_stat_wal`): a backend
 * reports its counts when it exits at the latest, so `work` closes its
 * connections and this waits until they are gone.
 */
async function walSyncsOf(
  admin: import("postgres").Sql,
  work: () => Promise<void>,
): Promise<number> {
  const count = async () => {
    const [row] = await admin`select wal_sync::int8::text as n from pg_stat_wal`;
    return Number(row?.n);
  };
  const before = await count();
  await work();
  for (;;) {
    const [row] = await admin`select count(*)::int as n from pg_stat_activity
      where application_name like 'spillway pid %' or application_name = 'wal-sync-control'`;
    if (row?.n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return await count() - before;
}

pgTest(
  "PostgresBlobStore: reusing a stored output touches it without a WAL flush of its own, seen by a collection at once",
  async () => {
    const server = await startPostgres();
    const url = await server.database();
    const admin = server.admin(new URL(url).pathname.slice(1));
    try {
      const text = "a stored output, reused\n";
      const touches = await walSyncsOf(admin, async () => {
        const db = PostgresDatabase.connect({ url, password: PG_PASSWORD, shown: url });
        try {
          const store = new PostgresBlobStore(db);
          const { ref } = await store.put(text);
          await admin`update spillway_blobs set touched_at = now() - interval '1 hour'`;
          for (let i = 0; i < 40; i++) assert.equal((await store.put(text)).ref, ref);
          // The last touch is visible to another session's collection straight away.
          const keepSince = new Date(Date.now() - 60_000);
          const garbage = await store.collect(new Set(), { keepSince, dryRun: true });
          assert.deepEqual(garbage.removed, []);
        } finally {
          await db.close();
        }
      });
      // The control: the same 40 updates, each committed durably, are 40 flushes.
      const control = await walSyncsOf(admin, async () => {
        const sql = (await import("postgres")).default(url, {
          password: PG_PASSWORD,
          connection: { application_name: "wal-sync-control" },
          onnotice: () => {},
        });
        try {
          for (let i = 0; i < 40; i++) await sql`update spillway_blobs set touched_at = now()`;
        } finally {
          await sql.end();
        }
      });
      assert.ok(control >= 40, `the control flushed the WAL ${control} times`);
      // Storing the blob is one flush per commit (a chunk, its row); the 40 touches none.
      assert.ok(touches < 10, `40 touches flushed the WAL ${touches} times`);
    } finally {
      await admin.end();
    }
  },
);

stopPostgresTest();
