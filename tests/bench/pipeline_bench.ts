/**
 * The whole pipeline (DESIGN §12): one turn whose assistant message asks for
 * 1,000 calls of 1 KB each, executed, capped at phase end, spent against the
 * batch ceiling, recorded, flushed and released. This variant uses the
 * `MockExecutor` and the in-memory store, so it measures the machines
 * themselves; the target (≥ 10,000 calls/s end to end) is for the real
 * executor and the file store.
 *
 * The baseline is the floor XState itself sets: 1,000 bare actors, each
 * created, started, sent three events and stopped. The 4,000-call variant
 * checks that the phase stays linear in its number of calls.
 *
 * @module
 */

import { assign, createActor, setup } from "xstate";
import { MockExecutor } from "../../src/machines/mock_executor.ts";
import { runTurn } from "../../src/machines/run_turn.ts";
import type { TurnInput } from "../../src/machines/turn_machine.ts";
import type { AssistantMessage, Provider } from "../../src/provider/provider.ts";
import { SizeThreshold } from "../../src/size/size_threshold.ts";
import { MemoryStreamStore } from "../../src/stream/memory_stream_store.ts";

const KB_TEXT = "k".repeat(1024);

function pipelineInput(calls: number, store: MemoryStreamStore, id: string): Promise<TurnInput> {
  const message: AssistantMessage = {
    text: "many calls",
    toolCalls: Array.from(
      { length: calls },
      (_, i) => ({ id: `call_${i}`, name: "kb", arguments: {} }),
    ),
  };
  let cycle = 0;
  const provider: Provider = {
    complete: () => Promise.resolve(cycle++ === 0 ? message : { text: "done", toolCalls: [] }),
  };
  return store.open(id).then((stream) => ({
    turnId: "bench",
    prompt: "go",
    provider,
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
  }));
}

let next = 0;

async function turnOf(b: Deno.BenchContext, calls: number): Promise<void> {
  const store = new MemoryStreamStore();
  const input = await pipelineInput(calls, store, `c${next++}`);
  b.start();
  const output = await runTurn(input);
  b.end();
  if (output.status !== "finished") throw new Error(`turn ${output.status}: ${output.reason}`);
}

const bare = setup({
  types: { context: {} as { n: number }, events: {} as { type: "tick" } },
  actions: { count: assign({ n: ({ context }) => context.n + 1 }) },
}).createMachine({ context: { n: 0 }, on: { tick: { actions: "count" } } });

Deno.bench({
  name: "1,000 bare actors: create, start, 3 events, stop",
  group: "pipeline",
  baseline: true,
  fn: () => {
    for (let i = 0; i < 1000; i++) {
      const actor = createActor(bare).start();
      actor.send({ type: "tick" });
      actor.send({ type: "tick" });
      actor.send({ type: "tick" });
      actor.stop();
    }
  },
});

Deno.bench({
  name: "turn: 1,000 calls of 1 KB (MockExecutor, memory store)",
  group: "pipeline",
  fn: async (b) => await turnOf(b, 1000),
});

Deno.bench({
  name: "turn: 4,000 calls of 1 KB (MockExecutor, memory store)",
  group: "pipeline",
  fn: async (b) => await turnOf(b, 4000),
});
