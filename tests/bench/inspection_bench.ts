/**
 * What inspection costs a run: the 1,000-call turn of `pipeline_bench.ts`
 * (one long-lived runtime, 1,000 calls of 1 KB, the file store) with no
 * inspection (the baseline), with `--inspect FILE` (records as JSON lines)
 * and with `--inspect-ws URL` (Stately's protocol to a WebSocket on
 * loopback, a server in this process that reads every message). The summary
 * gives each against the baseline, from the medians of this run.
 *
 * Group "sinks": how many inspection events per second each way out
 * sustains: the events of one such turn (captured once: real events, the
 * phase end's and the commit's carrying all 1,000 results) fed to a fresh
 * recorder alone, to `--inspect FILE` and to `--inspect-ws`, each opened and
 * closed in the iteration.
 *
 * `deno bench -A tests/bench/inspection_bench.ts`
 *
 * @module
 */

import { join } from "node:path";
import process from "node:process";
import type { InspectionEvent } from "xstate";
import { parseConfig } from "../../src/config/parse_config.ts";
import { Inspection } from "../../src/inspector/inspection.ts";
import { InspectionLog } from "../../src/inspector/inspection_log.ts";
import { InspectionSocket } from "../../src/inspector/inspection_socket.ts";
import type { AssistantMessage, Provider } from "../../src/provider/provider.ts";
import { createRuntime } from "../../src/runtime/create_runtime.ts";

const CALLS = 1000;
const KB_TEXT = "k".repeat(1024);
/** As `pipeline_bench.ts`: a long warmup (the SDK's code settles slowly), many counted turns. */
const SLOW = { warmup: 30, n: 60 } as const;

const answer: AssistantMessage = {
  text: "many calls",
  toolCalls: Array.from(
    { length: CALLS },
    (_, i) => ({ id: `call_${i}`, name: "kb", arguments: {} }),
  ),
};
const provider: Provider = {
  complete: (request) =>
    Promise.resolve(request.cycle === 0 ? answer : { text: "done", toolCalls: [] }),
};

const workspace = await Deno.makeTempDir({ prefix: "spillway_inspection_bench_" });
const runtime = await createRuntime({
  workspace,
  cwd: workspace,
  config: parseConfig(""),
  provider,
  tools: [{
    name: "kb",
    description: "1 KB of text",
    inputSchema: { type: "object" },
    run: () => Promise.resolve(KB_TEXT),
  }],
  noticeSink: { notice: () => {} },
});

// The inspector end of the WebSocket: reads every message, as a relay would.
let received = 0;
const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
  const { socket, response } = Deno.upgradeWebSocket(request);
  socket.onmessage = () => received++;
  return response;
});

const times = new Map<string, number[]>();
/** CPU time (user + system) of each counted turn: less moved by other work on the machine. */
const cpuTimes = new Map<string, number[]>();
const events = new Map<string, number>();
let next = 0;

/** One turn, inspected by `open()`'s inspection (none: no inspection), checked, timed. */
async function turn(
  b: Deno.BenchContext,
  name: string,
  open: () => Promise<Inspection | undefined>,
): Promise<void> {
  const inspection = await open();
  let seen = 0;
  const observe = inspection === undefined ? undefined : (event: InspectionEvent) => {
    seen++;
    inspection.observe(event);
  };
  const conversationId = `bench-${next++}`;
  b.start();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const output = await runtime.query("go", {
    conversationId,
    ...(observe === undefined ? {} : { inspect: (event) => observe(event as InspectionEvent) }),
  });
  // Sent or written: the inspection's own close is part of what it costs.
  await inspection?.close();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  b.end();
  cpuTimes.set(name, [...cpuTimes.get(name) ?? [], (used.user + used.system) / 1000]);
  const responses = output.messages.filter((m) => m.role === "tool").length;
  if (output.status !== "finished" || responses !== CALLS) {
    throw new Error(`turn ${output.status} with ${responses} responses`);
  }
  times.set(name, [...times.get(name) ?? [], ms]);
  if (seen > 0) events.set(name, seen);
  await Deno.remove(join(workspace, "conversations", conversationId), { recursive: true });
}

const NONE = `turn: ${CALLS} calls of 1 KB, no inspection`;
const FILE = `turn: ${CALLS} calls of 1 KB, --inspect FILE`;
const SOCKET = `turn: ${CALLS} calls of 1 KB, --inspect-ws URL (loopback)`;

Deno.bench({
  name: NONE,
  group: "inspection",
  baseline: true,
  ...SLOW,
  fn: async (b) => await turn(b, NONE, () => Promise.resolve(undefined)),
});

Deno.bench({
  name: FILE,
  group: "inspection",
  ...SLOW,
  fn: async (b) =>
    await turn(
      b,
      FILE,
      async () => new Inspection([await InspectionLog.create(join(workspace, "i.jsonl"))]),
    ),
});

Deno.bench({
  name: SOCKET,
  group: "inspection",
  ...SLOW,
  fn: async (b) =>
    await turn(b, SOCKET, async () =>
      new Inspection([
        await InspectionSocket.connect(new URL(`ws://127.0.0.1:${receiver.addr.port}/`)),
      ])),
});

// The events of one turn, captured to be fed again.
const captured: InspectionEvent[] = [];
await runtime.query("go", {
  conversationId: "capture",
  inspect: (e) => captured.push(e as InspectionEvent),
});
/** One turn's events per iteration: a fresh recorder each time, as each run has (it caches digests). */
const FEEDS = 1;

async function feed(
  b: Deno.BenchContext,
  name: string,
  open: () => Promise<Inspection>,
): Promise<void> {
  const inspection = await open();
  b.start();
  const started = performance.now();
  for (let i = 0; i < FEEDS; i++) for (const event of captured) inspection.observe(event);
  await inspection.close();
  const ms = performance.now() - started;
  b.end();
  times.set(name, [...times.get(name) ?? [], ms]);
  events.set(name, FEEDS * captured.length);
}

const RECORDER = `sinks: one turn's events, the recorder alone`;
const TO_FILE = `sinks: one turn's events to --inspect FILE`;
const TO_SOCKET = `sinks: one turn's events to --inspect-ws URL`;
const FAST = { warmup: 30, n: 80 } as const;

Deno.bench({
  name: RECORDER,
  group: "sinks",
  baseline: true,
  ...FAST,
  fn: async (b) => await feed(b, RECORDER, () => Promise.resolve(new Inspection([]))),
});

Deno.bench({
  name: TO_FILE,
  group: "sinks",
  ...FAST,
  fn: async (b) =>
    await feed(
      b,
      TO_FILE,
      async () => new Inspection([await InspectionLog.create(join(workspace, "f.jsonl"))]),
    ),
});

Deno.bench({
  name: TO_SOCKET,
  group: "sinks",
  ...FAST,
  fn: async (b) =>
    await feed(b, TO_SOCKET, async () =>
      new Inspection([
        await InspectionSocket.connect(new URL(`ws://127.0.0.1:${receiver.addr.port}/`)),
      ])),
});

function median(name: string, of: Map<string, number[]> = times): number {
  const sorted = [...of.get(name) ?? []].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

globalThis.addEventListener("unload", () => {
  const line = (name: string, label: string, base = NONE) => {
    const ms = median(name);
    const rate = events.has(name)
      ? `, ${events.get(name)} events = ${
        Math.round((events.get(name) ?? 0) / (ms / 1000)).toLocaleString("en")
      } events/s`
      : "";
    const cpu = cpuTimes.has(name)
      ? ` (CPU time ${median(name, cpuTimes).toFixed(1)} ms = ${
        (median(name, cpuTimes) / median(base, cpuTimes)).toFixed(2)
      }×)`
      : "";
    return `  ${label}: ${ms.toFixed(1)} ms = ${(ms / median(base)).toFixed(2)}× ${
      base === NONE ? "none" : "the recorder"
    }${cpu}${rate}`;
  };
  console.log([
    "",
    `inspection summary (medians of this run, load ${(Deno.loadavg()[0] ?? 0).toFixed(1)}):`,
    line(NONE, "none         "),
    line(FILE, "--inspect    "),
    line(SOCKET, "--inspect-ws "),
    `  one turn's events (${captured.length}), alone:`,
    line(RECORDER, "recorder     ", RECORDER),
    line(TO_FILE, "--inspect    ", RECORDER),
    line(TO_SOCKET, "--inspect-ws ", RECORDER),
    `  WebSocket messages read by the receiver: ${received.toLocaleString("en")}`,
  ].join("\n"));
  void runtime.close();
  void receiver.shutdown();
  Deno.removeSync(workspace, { recursive: true });
});
