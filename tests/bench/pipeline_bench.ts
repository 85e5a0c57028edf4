/**
 * The whole pipeline (docs/performance.md): one turn whose assistant message asks for
 * 1,000 calls of 1 KB each, executed, capped at phase end, spent against the
 * batch ceiling, recorded, flushed and released. The target is ≥ 10,000
 * calls/s end to end (≤ 100 ms per 1,000-call turn) for the real executor
 * and the file store; calls/s = 1,000 / the time per iteration.
 *
 * - Baseline: 1,000 concurrent bare MCP `callTool` round trips over the
 *   in-memory transport to a plain McpServer tool returning 1 KB — what the
 *   SDK alone costs for the same calls, with no barrier, machine or store.
 * - The full pipeline through `createRuntime`: the builtin source with a
 *   1 KB tool registered in code, the in-process execution service, the
 *   McpExecutor, the machines and the file store in a temp workspace. One
 *   query is one turn: turn_start, two provider requests (1,000 calls in
 *   cycle 0, a plain answer in cycle 1), the commit (one fsync), turn_end,
 *   plus opening and closing the conversation.
 * - The same turn with the `MockExecutor` and the in-memory store, which
 *   measures the machines themselves; its 4,000-call variant checks that the
 *   phase stays linear in its number of calls.
 * - For reference, 1,000 bare XState actors (create, start, 3 events, stop):
 *   the floor XState itself sets.
 *
 * @module
 */

import { join } from "node:path";
import { assign, createActor, setup } from "xstate";
import { parseConfig } from "../../src/config/parse_config.ts";
import { MockExecutor } from "../../src/testing/mock_executor.ts";
import { runTurn } from "../../src/machines/run_turn.ts";
import type { TurnInput } from "../../src/machines/turn_machine.ts";
import type { AssistantMessage, Provider } from "../../src/provider/provider.ts";
import { createRuntime } from "../../src/runtime/create_runtime.ts";
import { Client, InMemoryTransport, McpServer } from "../../src/service/sdk.ts";
import { SizeThreshold } from "../../src/size/size_threshold.ts";
import { MemoryStreamStore } from "../../src/stream/memory_stream_store.ts";

const KB_TEXT = "k".repeat(1024);
const CALLS = 1000;

/** The assistant message of cycle 0: `calls` calls of tool `kb`, ids unique within the turn. */
function manyCalls(calls: number): AssistantMessage {
  return {
    text: "many calls",
    toolCalls: Array.from(
      { length: calls },
      (_, i) => ({ id: `call_${i}`, name: "kb", arguments: {} }),
    ),
  };
}

/** Asks for `calls` calls in cycle 0 and ends the turn in cycle 1. */
function scriptedProvider(calls: number): Provider {
  const message = manyCalls(calls);
  return {
    complete: (request) =>
      Promise.resolve(request.cycle === 0 ? message : { text: "done", toolCalls: [] }),
  };
}

// (a) Baseline: a bare McpServer tool, no barrier, 1,000 concurrent calls.
const bare = new McpServer({ name: "bare", version: "1.0.0" });
bare.registerTool(
  "kb",
  { description: "1 KB of text" },
  () => ({ content: [{ type: "text", text: KB_TEXT }] }),
);
const [bareClientTransport, bareServerTransport] = InMemoryTransport.createLinkedPair();
await bare.connect(bareServerTransport);
const bareClient = new Client({ name: "bench", version: "1.0.0" });
await bareClient.connect(bareClientTransport);

// (b) The full pipeline: createRuntime with a file store in a temp workspace.
const workspace = await Deno.makeTempDir({ prefix: "spillway_pipeline_bench_" });
const runtime = await createRuntime({
  workspace,
  cwd: workspace,
  config: parseConfig(""),
  provider: scriptedProvider(CALLS),
  tools: [{
    name: "kb",
    description: "1 KB of text",
    inputSchema: { type: "object" },
    run: () => Promise.resolve(KB_TEXT),
  }],
  noticeSink: { notice: () => {} },
});

globalThis.addEventListener("unload", () => {
  void bareClient.close();
  void bare.close();
  void runtime.close();
  Deno.removeSync(workspace, { recursive: true });
});

let next = 0;

/**
 * A turn takes ~0.1 s, so left to itself `deno bench` measures about 15
 * iterations after a short warmup: JIT compilation lands in the figures, and
 * one slow fsync of the virtual disk moves the average by several percent.
 * These counts give it a real warmup and more iterations.
 */
const SLOW_BENCH = { warmup: 10, n: 40 } as const;

Deno.bench({
  name: `baseline: ${CALLS} bare MCP in-memory callTool round trips (1 KB)`,
  group: "pipeline",
  baseline: true,
  fn: async () => {
    await Promise.all(
      Array.from({ length: CALLS }, () => bareClient.callTool({ name: "kb", arguments: {} })),
    );
  },
});

Deno.bench({
  name: `turn: ${CALLS} calls of 1 KB (createRuntime: McpExecutor, file store)`,
  group: "pipeline",
  ...SLOW_BENCH,
  fn: async (b) => {
    const conversationId = `bench-${next++}`;
    b.start();
    const output = await runtime.query("go", { conversationId });
    b.end();
    if (output.status !== "finished" || output.errors.length > 0) {
      throw new Error(`turn ${output.status}: ${output.reason ?? output.errors[0]?.message}`);
    }
    // Keep the temp workspace small (untimed).
    await Deno.remove(join(workspace, "conversations", conversationId), { recursive: true });
  },
});

// (c) The machines alone: MockExecutor and the memory store.
function mockInput(calls: number, stream: TurnInput["stream"]): TurnInput {
  return {
    turnId: "bench",
    prompt: "go",
    provider: scriptedProvider(calls),
    tools: [{ name: "kb", description: "1 KB", inputSchema: { type: "object" } }],
    stream,
    executor: new MockExecutor({ kb: KB_TEXT }),
    prompter: {
      ask: () => Promise.reject(new Error("unattended")),
      edit: () => Promise.reject(new Error("unattended")),
    },
    policyFor: () => ({
      result: "unattended",
      run: "unattended",
      sizeThreshold: SizeThreshold.DEFAULT,
      cancellationResponse: "cancelled",
    }),
    noticeSink: { notice: () => {} },
    clock: { now: () => new Date(0) },
  };
}

async function mockTurn(b: Deno.BenchContext, calls: number): Promise<void> {
  const stream = await new MemoryStreamStore().open(`c${next++}`);
  const input = mockInput(calls, stream);
  b.start();
  const output = await runTurn(input);
  b.end();
  if (output.status !== "finished") throw new Error(`turn ${output.status}: ${output.reason}`);
}

Deno.bench({
  name: `turn: ${CALLS} calls of 1 KB (MockExecutor, memory store)`,
  group: "pipeline",
  ...SLOW_BENCH,
  fn: async (b) => await mockTurn(b, CALLS),
});

Deno.bench({
  name: "turn: 4,000 calls of 1 KB (MockExecutor, memory store)",
  group: "pipeline",
  fn: async (b) => await mockTurn(b, 4 * CALLS),
});

const bareActor = setup({
  types: { context: {} as { n: number }, events: {} as { type: "tick" } },
  actions: { count: assign({ n: ({ context }) => context.n + 1 }) },
}).createMachine({ context: { n: 0 }, on: { tick: { actions: "count" } } });

Deno.bench({
  name: `${CALLS} bare actors: create, start, 3 events, stop (XState floor)`,
  group: "pipeline",
  fn: () => {
    for (let i = 0; i < CALLS; i++) {
      const actor = createActor(bareActor).start();
      actor.send({ type: "tick" });
      actor.send({ type: "tick" });
      actor.send({ type: "tick" });
      actor.stop();
    }
  },
});
