/**
 * The PostgreSQL stream store against a real server: the stream store
 * contract suite, unchanged, then what only a database can do to a
 * commit (a connection killed mid-transaction, the server stopped), the
 * schema's versions, and the conversation lock between two processes.
 */

import assert from "node:assert/strict";
import type postgres from "postgres";
import { PostgresDatabase } from "../src/postgres/postgres_database.ts";
import { lockKey } from "../src/postgres/conversation_locks.ts";
import {
  type BatchRows,
  eventsArray,
  PostgresStreamStore,
} from "../src/postgres/postgres_stream_store.ts";
import { defineStreamStoreContract, SAMPLE_EVENTS } from "../src/testing/stream_store_contract.ts";
import type { StreamEvent, ToolCallResponseEvent } from "../src/stream/events.ts";
import {
  PG_PASSWORD,
  pgTest,
  POSTGRES_MISSING,
  startPostgres,
  stopPostgresTest,
} from "./_postgres.ts";

/** A database handle on a fresh database of the file's server. */
async function freshDatabase(): Promise<{ db: PostgresDatabase; url: string }> {
  const server = await startPostgres();
  const url = await server.database();
  return { db: PostgresDatabase.connect({ url, password: PG_PASSWORD, shown: url }), url };
}

/**
 * The commit statement followed, in the same statement (so the same
 * transaction), by `then`: `1 / 0` fails it after the rows were inserted,
 * `pg_sleep(60)` holds it open.
 */
async function commitThen(sql: postgres.Sql, rows: BatchRows, then: string): Promise<void> {
  await sql`select spillway_commit(
    ${rows.conversation}, ${rows.after}, ${rows.batch}::uuid, ${rows.uncertain as string[]}::uuid[],
    ${rows.types as string[]}::text[], ${rows.callIds as string[]}::text[],
    ${eventsArray(rows.events)}::text, ${lockKey(`commit ${rows.conversation}`)}::bigint
  ), ${sql.unsafe(then)}`;
}

if (POSTGRES_MISSING === undefined || Deno.env.get("SPILLWAY_REQUIRE_POSTGRES") === "1") {
  defineStreamStoreContract("PostgresStreamStore", async () => {
    const { db } = await freshDatabase();
    let failNext = false;
    const store = new PostgresStreamStore(db, {
      commit: (sql, rows) => {
        if (!failNext) return commitThen(sql, rows, "1");
        failNext = false;
        // The rows are inserted, then the statement fails: they are rolled back.
        return commitThen(sql, rows, "1 / 0");
      },
    });
    return {
      store,
      cleanup: () => db.close(),
      failNextFlush: () => {
        failNext = true;
      },
    };
  });
} else {
  pgTest("PostgresStreamStore: the stream store contract", () => Promise.resolve());
}

pgTest("PostgresStreamStore: events are JSON rows that plain SQL reads", async () => {
  const { db, url } = await freshDatabase();
  const server = await startPostgres();
  const admin = server.admin(new URL(url).pathname.slice(1));
  try {
    const stream = await new PostgresStreamStore(db).open("c1");
    await stream.append(SAMPLE_EVENTS.slice(3, 6));
    await stream.flush();
    await stream.close();
    const rows = await admin`select seq, type, call_id as id
      from spillway_events where conversation_id = 'c1' order by seq`;
    assert.deepEqual(rows.map((r) => [r.seq, r.type, r.id]), [
      [1, "tool_call_request", "call_1"],
      [2, "tool_call_response", "call_1"],
      [3, "tool_call_response", "call_2"],
    ]);
    const schema = await admin`select version, name from spillway_schema order by version`;
    assert.deepEqual(schema.map((row) => ({ ...row })), [
      { version: 1, name: "conversations, events and stored outputs" },
      {
        version: 2,
        name: "commits numbered by the database for conversations several gateways write",
      },
    ]);
  } finally {
    await admin.end();
    await db.close();
  }
});

pgTest(
  "PostgresStreamStore: a connection killed mid-transaction leaves nothing of its batch",
  async () => {
    const { db, url } = await freshDatabase();
    const server = await startPostgres();
    const admin = server.admin(new URL(url).pathname.slice(1));
    let hold = false;
    const store = new PostgresStreamStore(db, {
      commit: (sql, rows) => commitThen(sql, rows, hold ? "pg_sleep(60)" : "1"),
    });
    try {
      const stream = await store.open("c1");
      await stream.append([SAMPLE_EVENTS[0]!]);
      await stream.flush();
      await stream.append(SAMPLE_EVENTS.slice(1, 5));
      hold = true;
      const flushed = stream.flush();
      // Once the batch is inserted and the transaction waits, its connection is killed.
      let killed = false;
      while (!killed) {
        const rows = await admin<{ pid: number }[]>`select pid from pg_stat_activity
          where query like '%spillway_commit%pg_sleep(60)%' and wait_event = 'PgSleep'`;
        if (rows[0] !== undefined) {
          await admin`select pg_terminate_backend(${rows[0].pid})`;
          killed = true;
        }
      }
      hold = false;
      await assert.rejects(flushed, (error: Error) => {
        assert.match(error.message, /^could not flush postgres:\/\/.*\/conversations\/c1: /);
        return true;
      });
      assert.deepEqual((await stream.load()).events, [SAMPLE_EVENTS[0]]);
      // Nothing of the batch in the table, for any reader.
      const [count] = await admin`select count(*)::int as n from spillway_events`;
      assert.equal(count?.n, 1);
      // The conversation goes on: the pool reconnects.
      await stream.append([SAMPLE_EVENTS[5]!]);
      await stream.flush();
      await stream.close();
      assert.deepEqual((await store.read("c1")).events, [SAMPLE_EVENTS[0], SAMPLE_EVENTS[5]]);
    } finally {
      await admin.end();
      await db.close();
    }
  },
);

pgTest(
  "PostgresStreamStore: with the server stopped a flush fails, nothing is recorded, and it goes on once the server is back",
  async () => {
    const { db } = await freshDatabase();
    const server = await startPostgres();
    const store = new PostgresStreamStore(db);
    try {
      const stream = await store.open("c1");
      await stream.append([SAMPLE_EVENTS[0]!]);
      await stream.flush();
      await stream.append([SAMPLE_EVENTS[1]!]);
      await server.stop("immediate");
      try {
        await assert.rejects(stream.flush(), /^SpillwayError: could not flush |could not flush /);
      } finally {
        await server.start();
      }
      await stream.append([SAMPLE_EVENTS[2]!]);
      await stream.flush();
      assert.deepEqual((await stream.load()).events, [SAMPLE_EVENTS[0], SAMPLE_EVENTS[2]]);
      await stream.close();
      assert.deepEqual((await store.read("c1")).events, [SAMPLE_EVENTS[0], SAMPLE_EVENTS[2]]);
    } finally {
      await db.close();
    }
  },
);

pgTest(
  "the schema: created once by gateways starting together, a newer one refused by name",
  async () => {
    const server = await startPostgres();
    const url = await server.database();
    const handles = Array.from(
      { length: 3 },
      () => PostgresDatabase.connect({ url, password: PG_PASSWORD, shown: url }),
    );
    const admin = server.admin(new URL(url).pathname.slice(1));
    try {
      await Promise.all(handles.map((db) => db.ready()));
      const versions = await admin`select version from spillway_schema`;
      assert.deepEqual(versions.map((v) => v.version).sort(), [1, 2]);
      await admin`insert into spillway_schema (version, name) values (3, 'conversations by tenant')`;
      const later = PostgresDatabase.connect({ url, password: PG_PASSWORD, shown: url });
      handles.push(later);
      await assert.rejects(new PostgresStreamStore(later).open("c1"), (error: Error) => {
        assert.equal(
          error.message,
          `${url} holds spillway schema version 3 ("conversations by tenant"), newer than this ` +
            `spillway knows (version 2, "commits numbered by the database for conversations ` +
            `several gateways write"): nothing was changed; run a spillway that knows schema 3, ` +
            `or use another database`,
        );
        return true;
      });
    } finally {
      await admin.end();
      for (const db of handles) await db.close();
    }
  },
);

pgTest(
  "PostgresStreamStore: a conversation opened shared by several processes takes every commit of each, once, in commit order",
  async () => {
    const server = await startPostgres();
    const url = await server.database();
    const handles = Array.from(
      { length: 3 },
      () => PostgresDatabase.connect({ url, password: PG_PASSWORD, shown: url }),
    );
    const admin = server.admin(new URL(url).pathname.slice(1));
    try {
      const stores = handles.map((db) => new PostgresStreamStore(db));
      const id = "m-0123456789abcdef01234567";
      const streams = await Promise.all(stores.map((store) => store.open(id, { shared: true })));
      // A writer of its own is refused while they write, naming one of them.
      const alone = PostgresDatabase.connect({ url, password: PG_PASSWORD, shown: url });
      handles.push(alone);
      await assert.rejects(
        new PostgresStreamStore(alone).open(id),
        /^SpillwayError: conversation m-0123456789abcdef01234567 is open in another process \(pid \d+/,
      );
      // Each process commits 20 batches of two events at once with the others.
      const event = (w: number, b: number, e: number): StreamEvent => ({
        type: "tool_call_response",
        id: `call_${b}.${w}`,
        content: `writer ${w} batch ${b} event ${e}`,
        is_error: false,
      });
      await Promise.all(streams.map(async (stream, w) => {
        for (let b = 0; b < 20; b++) {
          await stream.append([event(w, b, 0), event(w, b, 1)]);
          await stream.flush();
        }
      }));
      const events = (await stores[0]!.read(id)).events as ToolCallResponseEvent[];
      assert.equal(events.length, 3 * 20 * 2);
      assert.equal(new Set(events.map((e) => e.content)).size, events.length);
      // Each batch whole, each writer's batches in its own order.
      for (let w = 0; w < 3; w++) {
        const mine = events.filter((e) => e.content.startsWith(`writer ${w} `));
        assert.deepEqual(
          mine.map((e) => e.content),
          Array.from({ length: 40 }, (_, i) => `writer ${w} batch ${i >> 1} event ${i & 1}`),
        );
      }
      for (let i = 0; i < events.length; i += 2) {
        assert.equal(events[i]!.content.replace(/0$/, "1"), events[i + 1]!.content);
      }
      // Numbered 1…120 without a gap, one commit after another.
      const seqs = await admin<{ seq: number }[]>`select seq from spillway_events order by seq`;
      assert.deepEqual(seqs.map((r) => r.seq), Array.from({ length: 120 }, (_, i) => i + 1));
      // Each process loads them all, and its handle's own pending events after them.
      await streams[1]!.append([event(1, 99, 0)]);
      const loaded = (await streams[1]!.load()).events;
      assert.equal(loaded.length, 121);
      for (const stream of streams) await stream.close();
      // Once every shared writer closed it, one writer of its own may open it.
      const later = await new PostgresStreamStore(alone).open(id);
      await later.close();
    } finally {
      await admin.end();
      for (const db of handles) await db.close();
    }
  },
);

pgTest(
  "PostgresStreamStore: a conversation open for one writer is refused to a shared writer",
  async () => {
    const server = await startPostgres();
    const url = await server.database();
    const one = PostgresDatabase.connect({ url, password: PG_PASSWORD, shown: url });
    const two = PostgresDatabase.connect({ url, password: PG_PASSWORD, shown: url });
    try {
      const stream = await new PostgresStreamStore(one).open("c1");
      await assert.rejects(
        new PostgresStreamStore(two).open("c1", { shared: true }),
        /^SpillwayError: conversation c1 is open in another process \(pid \d+/,
      );
      // In one process, one mode at a time.
      await assert.rejects(
        new PostgresStreamStore(one).open("c1", { shared: true }),
        /conversation c1 is open in this process for one writer/,
      );
      await stream.close();
    } finally {
      await one.close();
      await two.close();
    }
  },
);

stopPostgresTest();
