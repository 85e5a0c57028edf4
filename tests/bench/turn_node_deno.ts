/**
 * The 1,000-call turn on Node against the same on Deno, from the same code
 * and the public API only (`createRuntime`, a tool in code returning 1 KB,
 * the file store in a temporary workspace): one long-lived runtime runs 50
 * turns (10 of them warm-up), each a request answered with 1,000 calls, the
 * phase (run, cap, record, one fsync, release) and a closing answer; then 20
 * turns the way the README embeds spillway (`createRuntime`, one query,
 * `close()`). Each turn checks that all 1,000 responses were recorded.
 *
 * `deno run -A tests/bench/turn_node_deno.ts` measures on Deno, then bundles
 * this file for Node (scripts/_bundle_for_node.ts) and runs it with `node`,
 * and prints both and their ratio.
 *
 * @module
 */

import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime, type ProviderRequest, type Runtime } from "../../src/mod.ts";

const CALLS = 1000;
const WARMUP = 10;
const TURNS = 40;
const EMBEDDED_TURNS = 20;
const KB = "k".repeat(1024);

/** A provider that asks for `CALLS` calls of `kb`, then answers. */
function provider({ cycle }: ProviderRequest) {
  return Promise.resolve(
    cycle === 0
      ? {
        text: "many calls",
        toolCalls: Array.from({ length: CALLS }, (_, i) => ({
          id: `call_${i}`,
          name: "kb",
          arguments: {},
        })),
      }
      : { text: "done", toolCalls: [] },
  );
}

const TOOLS = [{
  name: "kb",
  description: "1 KB",
  inputSchema: { type: "object" as const, properties: {} },
  run: () => Promise.resolve(KB),
}];

function runtimeIn(workspace: string): Promise<Runtime> {
  return createRuntime({ workspace, provider, tools: TOOLS, noticeSink: { notice: () => {} } });
}

/** One turn; fails unless every response was recorded whole. */
async function turn(runtime: Runtime): Promise<number> {
  const start = performance.now();
  const result = await runtime.query("go");
  const elapsed = performance.now() - start;
  const log = await readFile(result.location, "utf8");
  const responses = log.split("\n").filter((line) => line.includes('"tool_call_response"'));
  if (responses.slice(-CALLS).some((line) => !line.includes(KB))) {
    throw new Error("a response was not recorded whole");
  }
  return elapsed;
}

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The medians of this runtime, in ms: a turn in a long-lived runtime, and one embedded. */
async function measure(): Promise<{ turn: number; embedded: number }> {
  const root = await mkdtemp(join(tmpdir(), "spillway-turn-bench-"));
  try {
    const runtime = await runtimeIn(join(root, "long"));
    const turns: number[] = [];
    for (let i = 0; i < WARMUP + TURNS; i++) {
      const ms = await turn(runtime);
      if (i >= WARMUP) turns.push(ms);
    }
    await runtime.close();
    const embedded: number[] = [];
    for (let i = 0; i < EMBEDDED_TURNS; i++) {
      const start = performance.now();
      const once = await runtimeIn(join(root, `embedded-${i}`));
      await turn(once);
      await once.close();
      embedded.push(performance.now() - start);
    }
    return { turn: median(turns), embedded: median(embedded) };
  } finally {
    await rm(root, { recursive: true });
  }
}

const onDeno = typeof (globalThis as { Deno?: { version?: { deno?: string } } }).Deno?.version
  ?.deno === "string";
const figures = await measure();
if (!onDeno) {
  console.log(JSON.stringify(figures));
} else {
  const { bundleForNode } = await import("../../scripts/_bundle_for_node.ts");
  const out = await Deno.makeTempDir({ prefix: "spillway-turn-bench-node-" });
  try {
    const root = new URL("../../", import.meta.url);
    await bundleForNode(root, ["tests/bench/turn_node_deno.ts"], new URL(`file://${out}/`));
    const node = await new Deno.Command("node", {
      args: [join(out, "turn_node_deno.js")],
      stderr: "inherit",
    }).output();
    if (!node.success) throw new Error("the Node run failed");
    const onNode = JSON.parse(new TextDecoder().decode(node.stdout)) as typeof figures;
    const row = (name: string, deno: number, node: number) =>
      console.log(
        `${name.padEnd(44)} Deno ${deno.toFixed(1)} ms, Node ${node.toFixed(1)} ms (Node/Deno ${
          (node / deno).toFixed(2)
        }×)`,
      );
    console.log(`Deno ${Deno.version.deno}, Node on PATH`);
    row("1,000-call turn, long-lived runtime (median)", figures.turn, onNode.turn);
    row("the same as the README embeds it (median)", figures.embedded, onNode.embedded);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
}
