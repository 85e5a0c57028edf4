/**
 * The load run of docs/performance.md ("The gateway under load"), on
 * loopback, bounded in time:
 *
 * 1. 50 MCP clients of one `spillway serve --http` (file store) each make
 *    20 calls one after another, all clients at once, of mixed sizes
 *    (1 KB mostly, some 64 KB, a few 1 MB and 3 MB, which the 256 KB
 *    threshold cuts). Printed: latency p50/p99, calls/s, the gateway's peak
 *    RSS and open files, and recorded ≠ delivered: every delivered text is
 *    compared with the response recorded for it (must be 0, as must the
 *    calls missing from the record and the failed calls), and the gateway's
 *    CPU time per call (its process alone; the upstream is another), which
 *    a loaded machine distorts far less than latency.
 * 2. 1,000 sessions that each make one call and are abandoned: the
 *    gateway's RSS and open files before, once they are open, once their
 *    streams are released (the linger), and after `session_idle_timeout`
 *    (5 s here) closed them all.
 *
 * Run: `deno run -A tests/bench/serve_load.ts [--load-only] [--modern N]
 * [--serve-v8-flags FLAGS]` (Linux: it reads `/proc`); `--load-only` runs
 * the first part alone, with no `[serve]` setting of its own (to run it on
 * a tree without them). `--modern N`: N of the 50 clients are v2 clients
 * pinned to MCP 2026-07-28 (no session: each call its own POST), each in a
 * conversation of its own (the `Spillway-Conversation` header), the others
 * 2025 sessions as before; latencies are printed for all and for each era.
 * `--serve-v8-flags FLAGS` starts the gateway with `DENO_V8_FLAGS=FLAGS`
 * (e.g. `--max-old-space-size=96`), this process without. `--baseline DIR`
 * (with `--load-only`, 2025 clients only) loads another tree's gateway
 * (tests/bench/_baseline_serve.ts) with this tree's clients.
 * The run fails (exit 1) when a count that must be zero is not, or a phase
 * passes its time bound.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { Client, StreamableHTTPClientTransport } from "../../src/service/sdk.ts";
import { abandonSessions, openFiles, rssMb, until } from "../_abandoned_sessions.ts";
import { join } from "../_paths.ts";
import { procStatusBytes } from "../_raw_http.ts";
import { spawnHttpServe } from "../gateway_fixtures.ts";
import { spawnBaselineServe } from "./_baseline_serve.ts";

const CLIENTS = 50;
const CALLS = 20;
const IDLE_SESSIONS = 1_000;
const TOKEN = "serve-load-token-0123456789abcdef";
const ECHO = new URL("../fixtures/postgres/echo_upstream.ts", import.meta.url).pathname;

/** The arguments of call `j` of client `i`: a prefix of its own, a mixed size (1 KB × repeat). */
function argumentsOf(i: number, j: number): { text: string; repeat: number } {
  const kind = (i * 7 + j) % 40;
  // 3 MB, 1 MB, 64 KB, else 1 KB.
  const repeat = kind === 0 ? 3072 : kind === 1 ? 1024 : kind < 6 ? 64 : 1;
  const prefix = `c${i}-${j}:`;
  return { text: prefix + "x".repeat(1024 - prefix.length), repeat };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

/** Fails the run when `promise` takes more than `ms`. */
async function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every recorded response under `workspace` that starts with a call's prefix, by prefix. */
async function recordedResponses(workspace: string): Promise<Map<string, string>> {
  const recorded = new Map<string, string>();
  const dir = join(workspace, "conversations");
  for await (const entry of Deno.readDir(dir)) {
    const text = await Deno.readTextFile(join(dir, entry.name, "events.jsonl"));
    for (const line of text.split("\n")) {
      if (line === "") continue;
      const event = JSON.parse(line);
      if (event.type !== "tool_call_response" || typeof event.content !== "string") continue;
      const prefix = /^c\d+-\d+:/.exec(event.content)?.[0];
      if (prefix !== undefined) recorded.set(prefix, event.content);
    }
  }
  return recorded;
}

const { values: options } = parseArgs({
  args: Deno.args,
  options: {
    "load-only": { type: "boolean", default: false },
    modern: { type: "string", default: "0" },
    "serve-v8-flags": { type: "string" },
    baseline: { type: "string" },
  },
});
const loadOnly = options["load-only"];
/** How many of the clients speak 2026-07-28 (the odd-numbered first, then the even). */
const MODERN = Number(options.modern);
if (!Number.isInteger(MODERN) || MODERN < 0 || MODERN > CLIENTS) {
  throw new RangeError(`--modern ${JSON.stringify(options.modern)}: use 0 to ${CLIENTS}`);
}
/** Whether client `i` is one of the `MODERN` 2026-07-28 clients. */
const isModern = (i: number) =>
  i % 2 === 1 ? (i - 1) / 2 < MODERN : Math.floor(CLIENTS / 2) + i / 2 < MODERN;
const serveV8Flags = options["serve-v8-flags"];
/** The open files of `pid` by kind: `socket`, `pipe`, `anon_inode`, or `file`. */
async function fileKinds(pid: number): Promise<Record<string, number>> {
  const { stdout } = await new Deno.Command("find", {
    args: [`/proc/${pid}/fd`, "-mindepth", "1", "-printf", "%l\\n"],
    stdout: "piped",
  }).output();
  const kinds: Record<string, number> = {};
  for (const target of new TextDecoder().decode(stdout).split("\n")) {
    if (target === "") continue;
    const kind = /^(socket|pipe|anon_inode):/.exec(target)?.[1] ?? "file";
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  return kinds;
}

const baseline = options.baseline;
if (baseline !== undefined && (!loadOnly || MODERN > 0)) {
  throw new Error(
    "--baseline: with --load-only and 2025 clients only (a baseline tree may not serve 2026-07-28)",
  );
}
const spawnServe: typeof spawnHttpServe = baseline === undefined
  ? spawnHttpServe
  : (flags, o) => spawnBaselineServe(baseline, flags, o);
await using serve = await spawnServe(
  loadOnly ? [] : [
    "-v",
    "--cfg",
    "serve.session_idle_timeout=5s",
    "--cfg",
    `serve.max_sessions=${IDLE_SESSIONS + CLIENTS + 10}`,
  ],
  {
    config: `[providers.mcp.up]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ["run", "--quiet", "--allow-env", ${JSON.stringify(ECHO)}]
`,
    env: {
      SPILLWAY_SERVE_TOKEN: TOKEN,
      ...(serveV8Flags === undefined ? {} : { DENO_V8_FLAGS: serveV8Flags }),
    },
  },
);
const url = serve.url as URL;
const pid = serve.child.pid;
const problems: string[] = [];
const load = await Deno.readTextFile("/proc/loadavg").then((text) => text.split(" ").slice(0, 3));
console.log(`load average at start: ${load.join(" ")}`);

// 1. 50 clients × 20 calls.
const before = { rss: await rssMb(pid), files: (await openFiles(pid, serve.workspace)).count };
let peakFiles = before.files;
const sampler = setInterval(() => {
  void openFiles(pid, serve.workspace).then((files) => {
    peakFiles = Math.max(peakFiles, files.count);
  }).catch(() => {});
}, 100);
/** User + system CPU time of `pid` so far, in ms (the kernel counts in 10 ms ticks). */
const cpuMs = (pid: number) => {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const cpuBefore = cpuMs(pid);
const latencies: number[] = [];
const byEra = { "2026-07-28": [] as number[], "2025-11-25": [] as number[] };
const delivered = new Map<string, string>();
let failed = 0;
const started = performance.now();
await bounded(
  Promise.all(Array.from({ length: CLIENTS }, async (_, i) => {
    const modern = isModern(i);
    const client = new Client(
      { name: `load-${i}`, version: "1.0.0" },
      modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
    );
    const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` };
    // A 2026-07-28 client has no session: its own header keeps its calls its own conversation.
    if (modern) headers["spillway-conversation"] = `load-${i}`;
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    const era = client.getNegotiatedProtocolVersion() === "2026-07-28"
      ? "2026-07-28"
      : "2025-11-25";
    if ((era === "2026-07-28") !== modern) throw new Error(`client ${i} speaks ${era}`);
    try {
      for (let j = 0; j < CALLS; j++) {
        const args = argumentsOf(i, j);
        const t0 = performance.now();
        try {
          const result = await client.callTool({ name: "echo", arguments: args }, {
            timeout: 60_000,
          });
          latencies.push(performance.now() - t0);
          byEra[era].push(performance.now() - t0);
          const text = (result.content as { type: string; text?: string }[])
            .flatMap((block) => block.type === "text" ? [block.text ?? ""] : []).join("\n");
          delivered.set(`c${i}-${j}:`, text);
        } catch (error) {
          failed++;
          console.error(`call c${i}-${j} failed: ${error}`);
        }
      }
    } finally {
      await client.close().catch(() => {});
    }
  })),
  180_000,
  "50 clients × 20 calls",
);
const seconds = (performance.now() - started) / 1000;
const gatewayCpuMs = cpuMs(pid) - cpuBefore;
clearInterval(sampler);
const peakRss = (await procStatusBytes(pid, "VmHWM")) / (1024 * 1024);
const recorded = await recordedResponses(serve.workspace);
let differ = 0;
let missing = 0;
for (const [prefix, text] of delivered) {
  const found = recorded.get(prefix);
  if (found === undefined) missing++;
  else if (found !== text) differ++;
}
const sorted = [...latencies].sort((a, b) => a - b);
console.log(
  `${CLIENTS} clients × ${CALLS} calls: ${latencies.length} calls in ${seconds.toFixed(1)} s, ` +
    `${(latencies.length / seconds).toFixed(1)} calls/s, p50 ${
      percentile(sorted, 0.5).toFixed(0)
    } ms, p99 ${percentile(sorted, 0.99).toFixed(0)} ms; gateway RSS ${
      before.rss.toFixed(0)
    } MB before, peak ${
      peakRss.toFixed(0)
    } MB; open files ${before.files} before, peak ${peakFiles}; ` +
    `recorded ≠ delivered ${differ}, delivered but not recorded ${missing}, failed ${failed}; ` +
    `the gateway's CPU ${(gatewayCpuMs / latencies.length).toFixed(2)} ms per call ` +
    `(${(gatewayCpuMs / 1000 / seconds).toFixed(2)} cores)`,
);
if (MODERN > 0) {
  for (const [era, figures] of Object.entries(byEra)) {
    const ordered = figures.toSorted((a, b) => a - b);
    console.log(
      `  ${era}: ${figures.length} calls, p50 ${percentile(ordered, 0.5).toFixed(0)} ms, p99 ${
        percentile(ordered, 0.99).toFixed(0)
      } ms`,
    );
  }
}
const loadAfter = await Deno.readTextFile("/proc/loadavg").then((t) => t.split(" ").slice(0, 3));
console.log(`load average after the load: ${loadAfter.join(" ")}`);
if (differ + missing + failed > 0 || latencies.length !== CLIENTS * CALLS) {
  problems.push(`load: ${differ} differ, ${missing} missing, ${failed} failed`);
}

if (loadOnly) {
  // Deno.exit skips the disposal of `serve`: stop the gateway (and its upstream) first.
  await serve[Symbol.asyncDispose]();
  if (problems.length > 0) console.error(problems.join("\n"));
  Deno.exit(problems.length > 0 ? 1 : 0);
}

// 2. 1,000 sessions opened, a call each, abandoned.
const closedLine = /session "?[0-9a-f-]{36}"? closed: no request for "?5s"?/;
const closedSoFar = () => serve.stderr.text.split("\n").filter((l) => closedLine.test(l)).length;
// The load's own 2025 sessions were ended by their clients; its 2026-07-28
// conversations end by their idle timeout: wait for them, so their closing
// is not counted as the abandoned sessions'.
await until(
  () => Promise.resolve(closedSoFar()),
  (count) => count >= MODERN,
  60_000,
  "the load's 2026-07-28 conversations closed",
);
const idle = { rss: await rssMb(pid), files: await openFiles(pid, serve.workspace) };
const closedBefore = closedSoFar();
const ids = await bounded(
  abandonSessions(url, TOKEN, IDLE_SESSIONS, {
    concurrency: 20,
    tool: "echo",
    args: { text: "idle-session call" },
  }),
  120_000,
  "1,000 sessions",
);
const opened = { rss: await rssMb(pid), files: await openFiles(pid, serve.workspace) };
const released = await until(
  () => openFiles(pid, serve.workspace),
  (files) => files.under.length === 0,
  30_000,
  "no file of the workspace open",
);
const releasedRss = await rssMb(pid);
await until(
  () => Promise.resolve(closedSoFar() - closedBefore),
  (count) => count >= ids.length,
  60_000,
  "every abandoned session closed",
);
const after = { rss: await rssMb(pid), files: await openFiles(pid, serve.workspace) };
console.log(
  `${IDLE_SESSIONS} abandoned sessions: RSS ${idle.rss.toFixed(0)} MB before, ${
    opened.rss.toFixed(0)
  } MB open, ${releasedRss.toFixed(0)} MB once their streams were released, ${
    after.rss.toFixed(0)
  } MB after the idle timeout; open files ${idle.files.count} before, ${opened.files.count} open ` +
    `(${opened.files.under.length} in the workspace), ${released.count} released ` +
    `(${released.under.length} in the workspace), ${after.files.count} after the idle timeout`,
);
console.log(`open files after the idle timeout, by kind: ${JSON.stringify(await fileKinds(pid))}`);
if (after.files.under.length > 0) problems.push(`idle: ${after.files.under.length} files held`);
if (problems.length > 0) {
  console.error(problems.join("\n"));
  Deno.exitCode = 1;
}
