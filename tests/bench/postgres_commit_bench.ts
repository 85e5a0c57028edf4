/**
 * Commit durability on PostgreSQL (docs/performance.md): a batch is one
 * transaction, so committing 1,000 responses of ~2 KB (2 MiB in all)
 * through the PostgreSQL stream store must stay within 2× of one 2 MiB
 * row inserted in one transaction (the baseline: the database alone, the
 * batch's own bytes as one text value, one commit). Beside them, for scale: the same 1,000 rows
 * inserted one statement each in one transaction, and one 1 KB row per
 * transaction (the least one commit costs).
 *
 * The server is a private one (tests/_postgres.ts: Debian's PostgreSQL,
 * `synchronous_commit = on`, fsync on), started when the bench loads and
 * removed when it unloads; every iteration writes a fresh conversation.
 * Run: `deno task bench tests/bench/postgres_commit_bench.ts`.
 *
 * @module
 */

import { PostgresDatabase } from "../../src/postgres/postgres_database.ts";
import { PostgresStreamStore } from "../../src/postgres/postgres_stream_store.ts";
import type { StreamEvent } from "../../src/stream/events.ts";
import { PG_PASSWORD, POSTGRES_MISSING, startPostgres } from "../_postgres.ts";

if (POSTGRES_MISSING !== undefined) {
  console.error(`postgres_commit_bench: skipped: ${POSTGRES_MISSING}`);
} else {
  const server = await startPostgres();
  const url = await server.database("bench");
  const db = PostgresDatabase.connect({ url, password: PG_PASSWORD, shown: url });
  await db.ready();
  const store = new PostgresStreamStore(db);
  const sql = db.sql;
  await sql`create table if not exists bench_rows (id bigserial primary key, body text not null)`;
  await sql`alter table bench_rows alter column body set compression lz4`;
  globalThis.addEventListener("unload", () => void db.close());

  const BATCH = 1000;
  const responses: StreamEvent[] = Array.from({ length: BATCH }, (_, i) => ({
    type: "tool_call_response",
    id: `call_${i}`,
    content: `response ${i}: ` + "lorem ipsum dolor sit amet ".repeat(77),
    is_error: false,
  }));
  const rows = responses.map((event) => JSON.stringify(event));
  // The baseline inserts the very bytes of the batch (2 MiB of JSON lines), as one value.
  const big = rows.join("\n");
  let next = 0;

  Deno.bench({
    name: "postgres: one 2 MiB row inserted in one transaction",
    group: "postgres-commit",
    baseline: true,
    async fn() {
      await sql`insert into bench_rows (body) values (${big})`;
    },
  });

  Deno.bench({
    name: "postgres: commit of 1,000 responses (PostgresStreamStore append + flush)",
    group: "postgres-commit",
    async fn(b) {
      const stream = await store.open(`bench-${++next}`);
      b.start();
      await stream.append(responses);
      await stream.flush();
      b.end();
      await stream.close();
    },
  });

  Deno.bench({
    name: "postgres: 1,000 rows of 2 KB, one statement each, in one transaction",
    group: "postgres-commit",
    async fn() {
      await sql.begin(async (tx) => {
        for (const row of rows) await tx`insert into bench_rows (body) values (${row})`;
      });
    },
  });

  Deno.bench({
    name: "postgres: one 1 KB row per transaction",
    group: "postgres-commit",
    async fn() {
      await sql`insert into bench_rows (body) values (${big.slice(0, 1024)})`;
    },
  });
}
