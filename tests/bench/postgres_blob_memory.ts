/**
 * Memory of a 1 GiB stored output, in PostgreSQL and, as the baseline in
 * the same run, in the workspace's files: the peak RSS above an idle
 * process of each way a stored output is used, each in a fresh process:
 *
 * - `write`: written through the store's writer 64 KiB at a time (as a
 *   local tool's output streams in), then finished;
 * - `chunks`: read back whole through its chunks, each checked (by its
 *   digest in PostgreSQL, the whole by its reference in both);
 * - `pages`: 256 pages of 64 KiB (`read_tool_output`'s default) spread
 *   over it, each straddling a chunk boundary;
 * - `search`: one search over all of it (`read_tool_output` with a
 *   pattern; about 230 lines match).
 *
 * "Idle" is the process after it opened the store and did the same things
 * with a 100 KiB output (code compiled, connections open), its garbage
 * collected; the peak is the
 * kernel's high-water mark (`VmHWM`), reset when the phase starts
 * (`/proc/self/clear_refs`). The target is the one of a local tool's
 * output with the file store: under 64 MiB above idle, whatever the size.
 *
 * Run: `deno run -A tests/bench/postgres_blob_memory.ts [--mib 1024]
 * [--store both|file|postgres]`. (`-A`: only it lets a process read and
 * reset its own `/proc/self` entries.)
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BlobRef } from "../../src/blobs/blob_ref.ts";
import type { BlobStore } from "../../src/blobs/blob_store.ts";
import { FileBlobStore } from "../../src/blobs/file_blob_store.ts";
import { readBlobPage } from "../../src/blobs/read_blob_page.ts";
import { searchBlob } from "../../src/blobs/search_blob.ts";
import { PostgresBlobStore } from "../../src/postgres/postgres_blob_store.ts";
import { PostgresDatabase } from "../../src/postgres/postgres_database.ts";
import { PG_PASSWORD, POSTGRES_MISSING, startPostgres } from "../_postgres.ts";

const MIB = 1 << 20;
const PHASES = ["write", "chunks", "pages", "search"] as const;
type Phase = typeof PHASES[number];
type Store = "file" | "postgres";

/** What one phase's process prints (one JSON line). */
interface PhaseReport {
  readonly phase: Phase;
  readonly store: Store;
  readonly ref: BlobRef;
  readonly bytes: number;
  readonly idleMiB: number;
  readonly aboveIdleMiB: number;
  readonly seconds: number;
}

function flag(name: string): string | undefined {
  const at = Deno.args.indexOf(`--${name}`);
  return at < 0 ? undefined : Deno.args[at + 1];
}

/** A field of /proc/self/status, in MiB. */
function status(field: "VmRSS" | "VmHWM"): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m")
    .exec(Deno.readTextFileSync("/proc/self/status"));
  if (match === null) throw new Error(`no ${field} in /proc/self/status`);
  return Number(match[1]) / 1024;
}

/** A log line, its counter at {@linkcode COUNTER_AT}: lines differ, so no two chunks are alike. */
const LINE = new TextEncoder().encode("line 000000000000 of a long test log: ok\n");
const COUNTER_AT = 5;
const PATTERN = /77777 of/;

/**
 * Writes `bytes` bytes of log lines through the store's writer, 64 KiB at
 * a time. One buffer, its counters rewritten in place: what is measured is
 * the store's memory, not the making of the text.
 */
async function write(store: BlobStore, bytes: number): Promise<{ ref: BlobRef; bytes: number }> {
  const lines = Math.floor(64 * 1024 / LINE.length);
  const piece = new Uint8Array(lines * LINE.length);
  for (let i = 0; i < lines; i++) piece.set(LINE, i * LINE.length);
  const writer = await store.writer();
  for (let n = 0; writer.bytes < bytes;) {
    for (let i = 0; i < lines; i++, n++) {
      for (let digit = 11, rest = n; digit >= 0; digit--, rest = Math.floor(rest / 10)) {
        piece[i * LINE.length + COUNTER_AT + digit] = 48 + rest % 10;
      }
    }
    await writer.write(piece);
  }
  return await writer.finish();
}

async function readChunks(store: BlobStore, ref: BlobRef, size: number): Promise<void> {
  let read = 0;
  for await (const chunk of (await store.chunks(ref))!) read += chunk.length;
  if (read !== size) throw new Error(`read ${read} of ${size} bytes`);
}

async function readPages(
  store: BlobStore,
  ref: BlobRef,
  size: number,
  pages: number,
): Promise<void> {
  const stride = Math.max(MIB, Math.floor(size / pages / MIB) * MIB);
  for (let i = 1; i <= pages; i++) {
    const offset = Math.max(0, Math.min(i * stride, size) - 32 * 1024);
    const page = await readBlobPage(store, ref, offset, 64 * 1024);
    if (page === undefined || !page.text.includes(" of a long test log: ok\n")) {
      throw new Error(`page at ${offset} is not the log's text`);
    }
  }
}

async function search(store: BlobStore, ref: BlobRef): Promise<void> {
  const found = await searchBlob(store, ref, PATTERN);
  if (found === undefined || found.stopped || found.matches.length === 0) {
    throw new Error(`the search found ${found?.matches.length} lines`);
  }
}

/** One phase in this process: open, warm up, then measure. */
async function runPhase(phase: Phase, store: Store): Promise<PhaseReport> {
  const db = store === "postgres"
    ? PostgresDatabase.connect({ url: flag("url")!, password: PG_PASSWORD, shown: flag("url")! })
    : undefined;
  const blobs = db === undefined ? new FileBlobStore(flag("dir")!) : new PostgresBlobStore(db);
  try {
    // The same work on a small output: code compiled, connections open.
    const small = await write(blobs, 100 * 1024);
    await readChunks(blobs, small.ref, small.bytes);
    await readPages(blobs, small.ref, small.bytes, 4);
    await searchBlob(blobs, small.ref, PATTERN);
    // What the warm-up left is garbage: collected, so that idle is what the process holds.
    (globalThis as { gc?: () => void }).gc?.();
    const idle = status("VmRSS");
    Deno.writeTextFileSync("/proc/self/clear_refs", "5"); // VmHWM := VmRSS
    const started = performance.now();
    let ref = flag("ref") as BlobRef;
    let bytes = Number(flag("bytes"));
    if (phase === "write") ({ ref, bytes } = await write(blobs, Number(flag("mib")) * MIB));
    else if (phase === "chunks") await readChunks(blobs, ref, bytes);
    else if (phase === "pages") await readPages(blobs, ref, bytes, 256);
    else await search(blobs, ref);
    const seconds = (performance.now() - started) / 1000;
    const peak = status("VmHWM");
    return { phase, store, ref, bytes, idleMiB: idle, aboveIdleMiB: peak - idle, seconds };
  } finally {
    await db?.close();
  }
}

/** Runs one phase in a fresh process. */
async function spawnPhase(phase: Phase, store: Store, args: string[]): Promise<PhaseReport> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--v8-flags=--expose-gc",
      fileURLToPath(import.meta.url),
      "--phase",
      phase,
      "--store",
      store,
      ...args,
    ],
    stdin: "null",
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error(`the ${phase} phase on ${store} failed (${output.code})`);
  return JSON.parse(new TextDecoder().decode(output.stdout)) as PhaseReport;
}

if (import.meta.main) {
  const phase = flag("phase") as Phase | undefined;
  const mib = Number(flag("mib") ?? 1024);
  if (phase !== undefined) {
    console.log(JSON.stringify(await runPhase(phase, flag("store") as Store)));
  } else {
    const which = flag("store") ?? "both";
    const stores: Store[] = which === "both" ? ["file", "postgres"] : [which as Store];
    if (stores.includes("postgres") && POSTGRES_MISSING !== undefined) {
      console.error(`postgres_blob_memory: PostgreSQL skipped: ${POSTGRES_MISSING}`);
      stores.splice(stores.indexOf("postgres"), 1);
    }
    const dir = await Deno.makeTempDir({ prefix: "spillway_blob_memory_" });
    const server = stores.includes("postgres") ? await startPostgres() : undefined;
    try {
      const url = server === undefined ? "" : await server.database("memory");
      console.log(`a ${mib} MiB stored output; peak RSS above an idle process, per phase`);
      for (const store of stores) {
        const where = store === "file" ? ["--dir", join(dir, "blobs")] : ["--url", url];
        const written = await spawnPhase("write", store, [...where, "--mib", String(mib)]);
        const reports = [written];
        for (const phase of PHASES.slice(1)) {
          const blob = ["--ref", written.ref, "--bytes", String(written.bytes)];
          reports.push(await spawnPhase(phase, store, [...where, ...blob]));
        }
        for (const r of reports) {
          console.log(
            `${store.padEnd(8)} ${r.phase.padEnd(6)} ${
              r.aboveIdleMiB.toFixed(1).padStart(6)
            } MiB ` +
              `above idle (idle ${r.idleMiB.toFixed(1)} MiB), ${r.seconds.toFixed(1)} s`,
          );
        }
      }
    } finally {
      await server?.remove();
      await Deno.remove(dir, { recursive: true });
    }
  }
}
