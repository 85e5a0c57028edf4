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
 * kill (lost commits). Run: `deno run -A tests/bench/postgres_load.ts
 * [SECONDS]` (default 20 per run).
 *
 * @module
 */

import type { Client } from "../../src/service/sdk.ts";
import { gatewayClient, startGateways, startHaproxy } from "../_gateways.ts";
import { POSTGRES_MISSING, startPostgres } from "../_postgres.ts";

const SECONDS = Number(Deno.args[0] ?? 20);
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

async function load(
  url: URL,
  seconds: number,
  midway?: () => Promise<void>,
): Promise<Run> {
  const clients: Client[] = [];
  for (let i = 0; i < CLIENTS; i++) clients.push(await gatewayClient(url, `load-${i}`));
  const latencies: number[] = [];
  const delivered = new Map<string, string>();
  let failed = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  let killed = midway === undefined;
  const loops = clients.map(async (client, i) => {
    let current = client;
    for (let j = 0; performance.now() < until; j++) {
      if (!killed && performance.now() > started + seconds * 500) {
        killed = true;
        await midway?.();
      }
      const args = argumentsOf(i, j);
      const t0 = performance.now();
      try {
        const result = await current.callTool({ name: "echo", arguments: args }, undefined, {
          timeout: 10_000,
        });
        latencies.push(performance.now() - t0);
        const block = (result.content as { text?: string }[])[0];
        delivered.set(`c${i}-${j}:`, block?.text ?? "");
      } catch {
        failed++;
        current = await gatewayClient(url, `load-${i}-again`);
        clients.push(current);
      }
    }
  });
  await Promise.all(loops);
  const elapsed = (performance.now() - started) / 1000;
  for (const client of clients) await client.close().catch(() => {});
  return { calls: latencies.length, seconds: elapsed, latencies, delivered, failed };
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
  console.log(`load: ${CLIENTS} clients, ${SECONDS} s per run, ${Deno.args.join(" ")}`);
  for (const [count, kill] of [[1, false], [3, false], [3, true]] as const) {
    const url = await server.database(`load${count}`);
    const admin = server.admin(new URL(url).pathname.slice(1));
    const gateways = await startGateways(count, url, false);
    const balancer = await startHaproxy(gateways.map((g) => g.url!));
    try {
      const midway = kill
        ? async () => {
          gateways[0]!.child.kill("SIGKILL");
          await gateways[0]!.child.status;
        }
        : undefined;
      const run = await load(balancer.url, SECONDS, midway);
      report(
        count === 1 ? "1 gateway" : kill ? "3 gateways, one killed halfway" : "3 gateways",
        run,
        await check(admin, run.delivered),
      );
    } finally {
      await balancer[Symbol.asyncDispose]();
      for (const gateway of gateways) await gateway[Symbol.asyncDispose]();
      await admin.end();
    }
  }
  await server.remove();
}
