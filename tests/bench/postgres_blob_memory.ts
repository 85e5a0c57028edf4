/**
 * Memory of a 1 GiB stored output in PostgreSQL: written through the blob
 * store's writer 64 KiB at a time (as a local tool's output streams in),
 * then read back whole through its chunks (as a search does), each chunk
 * checked by its digest and the whole by its reference. Prints the peak
 * RSS (`VmHWM`) above the process's RSS before the write; the target is the
 * one of local tools' outputs: under 64 MiB above idle, whatever the size.
 * Run: `deno run -A tests/bench/postgres_blob_memory.ts [MIB]` (default 1024).
 *
 * @module
 */

import { PostgresBlobStore } from "../../src/postgres/postgres_blob_store.ts";
import { PostgresDatabase } from "../../src/postgres/postgres_database.ts";
import { PG_PASSWORD, POSTGRES_MISSING, startPostgres } from "../_postgres.ts";

const MIB = Number(Deno.args[0] ?? 1024);

/** A field of /proc/self/status, in KiB. */
function status(field: string): number {
  const line = Deno.readTextFileSync("/proc/self/status").split("\n")
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? NaN);
}

if (POSTGRES_MISSING !== undefined) {
  console.error(`postgres_blob_memory: skipped: ${POSTGRES_MISSING}`);
} else {
  const server = await startPostgres();
  const url = await server.database("memory");
  const db = PostgresDatabase.connect({ url, password: PG_PASSWORD, shown: url });
  await db.ready();
  const store = new PostgresBlobStore(db);
  // Lines that differ (a counter in each), so the chunks are not all alike.
  const line = (i: number) => `line ${i.toString().padStart(12, "0")} of a long test log: ok\n`;
  const encoder = new TextEncoder();
  const before = status("VmRSS");
  const started = performance.now();
  const writer = await store.writer();
  let n = 0;
  while (writer.bytes < MIB * 1024 * 1024) {
    let chunk = "";
    while (chunk.length < 64 * 1024) chunk += line(n++);
    await writer.write(encoder.encode(chunk));
  }
  const blob = await writer.finish();
  const written = performance.now();
  let read = 0;
  for await (const chunk of (await store.chunks(blob.ref))!) read += chunk.length;
  const done = performance.now();
  if (read !== blob.bytes) throw new Error(`read ${read} of ${blob.bytes} bytes`);
  const peak = status("VmHWM");
  console.log(
    `${(blob.bytes / 2 ** 20).toFixed(0)} MiB stored output in PostgreSQL: written in ` +
      `${((written - started) / 1000).toFixed(1)} s, read back (checked) in ` +
      `${((done - written) / 1000).toFixed(1)} s; peak RSS ${(peak / 1024).toFixed(1)} MiB, ` +
      `${((peak - before) / 1024).toFixed(1)} MiB above the RSS before the write`,
  );
  await db.close();
  await server.remove();
}
