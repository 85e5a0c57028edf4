/**
 * The load run of docs/performance.md: 50 MCP clients calling as fast as
 * they can, with mixed result sizes (1 KB mostly, some 64 KB, a few 1 MB
 * that the 256 KB threshold cuts), for a bounded time, against
 *
 * 1. one `spillway serve --http` on PostgreSQL (behind HAProxy, one server),
 * 2. three of them on the same database behind HAProxy,
 * 3. the same, one of them killed (SIGKILL) halfway; its clients start new
 *    sessions elsewhere.
 *
 * Printed per run: calls/s, latency p50/p99, and two counts that must be
 * zero: delivered results whose recorded response differs (recorded ≠
 * delivered), and delivered results missing from the database after the
 * kill (lost commits). Then where the CPU went, in cores (CPU seconds per
 * second of the run, from `/proc`): the clients (this process), each
 * gateway, their upstreams, HAProxy and PostgreSQL, against the cores the
 * machine has: a run that uses them all measures the machine, not the
 * gateways.
 *
 * With `--modern`, the clients speak MCP 2026-07-28 (no session: each call
 * its own POST, client `i`'s calls in conversation `load-i`) and HAProxy
 * sends every request round robin (no stickiness), so each conversation is
 * written by every gateway at once; each run also prints the CPU each
 * gateway spent per call it served (round robin: a call in N went to each).
 *
 * Run: `deno run -A tests/bench/postgres_load.ts [SECONDS] [--runs N]
 * [--client raw|sdk] [--modern] [--commit-delay MICROSECONDS] [--gateway-cpus LIST]`.
 * SECONDS per run (default 20); `--runs`: the three runs repeated;
 * `--client raw` (the default) calls with plain `fetch` and JSON-RPC
 * (`tests/_raw_mcp_session.ts`), `sdk` with the MCP SDK's client;
 * `--commit-delay` sets PostgreSQL's `commit_delay` (with
 * `commit_siblings = 1`) so concurrent commits share a WAL flush;
 * `--gateway-cpus 2,3,4` pins gateway i (and its upstream) to the i-th
 * CPU with `taskset` (for a machine with cores to spare: the clients,
 * HAProxy and PostgreSQL then run on the others).
 *
 * @module
 */

import { join } from "node:path";
import type { Client } from "../../src/service/sdk.ts";
import { GATEWAY_TOKEN, gatewayClient, startGateways, startHaproxy } from "../_gateways.ts";
import { POSTGRES_MISSING, startPostgres } from "../_postgres.ts";
import { cpuSecondsOf, machineCpuSeconds, pinToCpu, treeCpuSeconds } from "../_process_cpu.ts";
import { RawMcpSession } from "../_raw_mcp_session.ts";

function flag(name: string): string | undefined {
  const at = Deno.args.indexOf(`--${name}`);
  return at < 0 ? undefined : Deno.args[at + 1];
}

const SECONDS = Number(/^\d+$/.test(Deno.args[0] ?? "") ? Deno.args[0] : 20);
const RUNS = Number(flag("runs") ?? 1);
const CLIENT = (flag("client") ?? "raw") as "raw" | "sdk";
const COMMIT_DELAY = flag("commit-delay");
const GATEWAY_CPUS = flag("gateway-cpus")?.split(",").map(Number);
const MODERN = Deno.args.includes("--modern");
const CLIENTS = 50;

interface Run {
  readonly calls: number;
  readonly seconds: number;
  readonly latencies: number[];
  /** What each call delivered, by its unique prefix. */
  readonly delivered: Map<string, string>;
  readonly failed: number;
}

/** The arguments of call `j` of client `i`: its own prefix, a mixed size. */
function argumentsOf(i: number, j: number): { text: string; repeat: number } {
  const kind = (i * 7 + j) % 20;
  const repeat = kind === 0 ? 1024 : kind < 4 ? 64 : 1; // 1 MB, 64 KB, 1 KB
  return { text: `c${i}-${j}:` + "x".repeat(1024 - `c${i}-${j}:`.length), repeat };
}

/** A client session, SDK or raw: calls `echo`, throws when the call failed. */
interface LoadSession {
  echo(args: { text: string; repeat: number }): Promise<string>;
  close(): Promise<void>;
}

async function openSession(url: URL, name: string, i: number): Promise<LoadSession> {
  if (CLIENT === "sdk") {
    const client: Client = await gatewayClient(url, name, MODERN ? `load-${i}` : undefined);
    return {
      echo: async (args) => {
        const result = await client.callTool({ name: "echo", arguments: args }, {
          timeout: 10_000,
        });
        return (result.content as { text?: string }[])[0]?.text ?? "";
      },
      close: () => client.close(),
    };
  }
  const session = MODERN
    ? RawMcpSession.modern(url, GATEWAY_TOKEN, name, `load-${i}`)
    : await RawMcpSession.open(url, GATEWAY_TOKEN, name);
  return {
    echo: async (args) => {
      const result = await session.callTool("echo", args, AbortSignal.timeout(10_000));
      if (!result.ok) throw new Error(result.error);
      return result.text;
    },
    close: () => session.close(),
  };
}

async function load(
  url: URL,
  seconds: number,
  midway?: () => Promise<void>,
  onStart?: () => void,
): Promise<Run> {
  const sessions: LoadSession[] = [];
  for (let i = 0; i < CLIENTS; i++) sessions.push(await openSession(url, `load-${i}`, i));
  const latencies: number[] = [];
  const delivered = new Map<string, string>();
  let failed = 0;
  onStart?.();
  const started = performance.now();
  const until = started + seconds * 1000;
  let killed = midway === undefined;
  const loops = sessions.map(async (session, i) => {
    let current = session;
    for (let j = 0; performance.now() < until; j++) {
      if (!killed && performance.now() > started + seconds * 500) {
        killed = true;
        await midway?.();
      }
      const args = argumentsOf(i, j);
      const t0 = performance.now();
      try {
        const text = await current.echo(args);
        latencies.push(performance.now() - t0);
        delivered.set(`c${i}-${j}:`, text);
      } catch {
        failed++;
        current = await openSession(url, `load-${i}-again`, i);
        sessions.push(current);
      }
    }
  });
  await Promise.all(loops);
  const elapsed = (performance.now() - started) / 1000;
  for (const session of sessions) await session.close().catch(() => {});
  return { calls: latencies.length, seconds: elapsed, latencies, delivered, failed };
}

/** The processes whose CPU a run accounts for, by role. */
interface Roles {
  readonly gateways: readonly number[];
  readonly haproxy: number;
  readonly postmaster: number;
}

/** CPU seconds so far, by role. */
function cpuNow(roles: Roles): Record<string, number> {
  const figures: Record<string, number> = { clients: cpuSecondsOf(Deno.pid) };
  roles.gateways.forEach((pid, i) => {
    const alone = cpuSecondsOf(pid);
    figures[`gateway ${i + 1}`] = alone;
    figures[`upstream ${i + 1}`] = treeCpuSeconds(pid) - alone;
  });
  figures["haproxy"] = treeCpuSeconds(roles.haproxy);
  figures["postgres"] = treeCpuSeconds(roles.postmaster);
  const machine = machineCpuSeconds();
  figures["machine busy"] = machine.busy;
  figures["machine idle"] = machine.idle;
  return figures;
}

/**
 * The CPU each gateway spent per call it served, between two
 * {@linkcode cpuNow} readings: round robin gives each of `count` gateways a
 * call in `count` (a 2025 run's sessions are spread, not its calls: there it
 * is an average).
 */
function cpuPerCall(
  before: Record<string, number>,
  after: Record<string, number>,
  calls: number,
  count: number,
): string {
  const gateways = Object.keys(before).filter((role) => role.startsWith("gateway "));
  const spent = gateways.map((role) => Math.max(0, after[role]! - before[role]!));
  const each = gateways.map((role, i) =>
    `${role} ${(spent[i]! * 1000 / (calls / count)).toFixed(2)} ms`
  );
  const total = spent.reduce((a, b) => a + b, 0) * 1000 / Math.max(1, calls);
  return `gateway CPU per call served: ${each.join(", ")}; all gateways ${
    total.toFixed(2)
  } ms per call`;
}

/** Cores used by each role between two {@linkcode cpuNow} readings. */
function coresUsed(
  before: Record<string, number>,
  after: Record<string, number>,
  seconds: number,
): string {
  let total = 0;
  const cores = (role: string) => Math.max(0, after[role]! - before[role]!) / seconds;
  const parts = Object.keys(before).filter((role) => !role.startsWith("machine")).map((role) => {
    total += cores(role);
    return `${role} ${cores(role).toFixed(2)}`;
  });
  return `cores used: ${parts.join(", ")}; this run ${total.toFixed(2)}, the machine ${
    cores("machine busy").toFixed(2)
  } busy and ${cores("machine idle").toFixed(2)} idle of ${navigator.hardwareConcurrency}`;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

/** Recorded ≠ delivered, and delivered but not recorded, over the whole database. */
async function check(
  admin: import("postgres").Sql,
  delivered: Map<string, string>,
): Promise<{ differ: number; missing: number }> {
  const recorded = new Map<string, string>();
  const rows = admin<{ content: string }[]>`
    select event->>'content' as content from spillway_events
    where type = 'tool_call_response'`.cursor(1000);
  for await (const batch of rows) {
    for (const { content } of batch) {
      const prefix = /^c\d+-\d+:/.exec(content)?.[0];
      if (prefix !== undefined) recorded.set(prefix, content);
    }
  }
  let differ = 0;
  let missing = 0;
  for (const [prefix, text] of delivered) {
    const found = recorded.get(prefix);
    if (found === undefined) missing++;
    else if (found !== text) differ++;
  }
  return { differ, missing };
}

function report(name: string, run: Run, checked: { differ: number; missing: number }): void {
  const sorted = run.latencies.toSorted((a, b) => a - b);
  console.log(
    `${name}: ${run.calls} calls in ${run.seconds.toFixed(1)} s = ` +
      `${(run.calls / run.seconds).toFixed(1)} calls/s; p50 ${
        percentile(sorted, 0.5).toFixed(1)
      } ms, ` +
      `p99 ${percentile(sorted, 0.99).toFixed(1)} ms; failed calls ${run.failed}; ` +
      `recorded ≠ delivered: ${checked.differ}; delivered but not recorded: ${checked.missing}`,
  );
}

if (POSTGRES_MISSING !== undefined) {
  console.error(`postgres_load: skipped: ${POSTGRES_MISSING}`);
} else {
  const server = await startPostgres();
  const postmaster = Number(
    (await Deno.readTextFile(join(server.dir, "data", "postmaster.pid"))).split("\n")[0],
  );
  if (COMMIT_DELAY !== undefined) {
    const admin = server.admin();
    await admin.unsafe(`alter system set commit_delay = ${Number(COMMIT_DELAY)}`);
    await admin`alter system set commit_siblings = 1`;
    await admin`select pg_reload_conf()`;
    await admin.end();
  }
  console.log(
    `load: ${CLIENTS} ${CLIENT} ${MODERN ? "2026-07-28" : "2025"} clients, ${SECONDS} s ` +
      `per run, ${RUNS} round(s); ` +
      `${navigator.hardwareConcurrency} CPUs; args: ${Deno.args.join(" ")}`,
  );
  const rates: Record<string, number[]> = {};
  for (let round = 1; round <= RUNS; round++) {
    for (const [count, kill] of [[1, false], [3, false], [3, true]] as const) {
      const name = count === 1
        ? "1 gateway"
        : kill
        ? "3 gateways, one killed halfway"
        : "3 gateways";
      const url = await server.database(`load${count}`);
      const admin = server.admin(new URL(url).pathname.slice(1));
      const gateways = await startGateways(count, url, false);
      const balancer = await startHaproxy(gateways.map((g) => g.url!), { sticky: !MODERN });
      try {
        if (GATEWAY_CPUS !== undefined) {
          for (const [i, gateway] of gateways.entries()) {
            await pinToCpu(gateway.child.pid, GATEWAY_CPUS[i % GATEWAY_CPUS.length]!);
          }
        }
        const roles = {
          gateways: gateways.map((g) => g.child.pid),
          haproxy: balancer.pid,
          postmaster,
        };
        let before: Record<string, number> = {};
        const walSyncs = async () => {
          const [row] = await admin`select wal_sync::int8::text as n from pg_stat_wal`;
          return Number(row?.n);
        };
        const syncsBefore = await walSyncs();
        const midway = kill
          ? async () => {
            gateways[0]!.child.kill("SIGKILL");
            await gateways[0]!.child.status;
          }
          : undefined;
        const run = await load(balancer.url, SECONDS, midway, () => {
          before = cpuNow(roles);
        });
        const after = cpuNow(roles);
        report(name, run, await check(admin, run.delivered));
        // Backends report their WAL counts when idle (within a second): read after the check.
        const syncs = await walSyncs() - syncsBefore;
        console.log(`  ${coresUsed(before, after, run.seconds)}`);
        console.log(`  ${cpuPerCall(before, after, run.calls, count)}`);
        console.log(
          `  WAL flushes: ${syncs} (${(syncs / run.seconds).toFixed(0)}/s, ${
            (syncs / Math.max(1, run.calls)).toFixed(2)
          } per call)`,
        );
        (rates[name] ??= []).push(run.calls / run.seconds);
      } finally {
        await balancer[Symbol.asyncDispose]();
        for (const gateway of gateways) await gateway[Symbol.asyncDispose]();
        await admin.end();
      }
    }
  }
  const one = rates["1 gateway"] ?? [];
  const three = rates["3 gateways"] ?? [];
  console.log(
    `3 gateways / 1 gateway, calls/s, per round: ${
      three.map((r, i) => (r / one[i]!).toFixed(2) + "×").join(", ")
    }`,
  );
  await server.remove();
}
