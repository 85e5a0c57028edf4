/**
 * Durable before released, on the real parts: a turn over the in-process
 * execution service, the real `McpExecutor` and a `FileStreamStore`, with
 * the store's fsync instrumented through its injectable `sync`. Each time an
 * fsync resolves, the test reads which responses the log now holds durably,
 * and checks that every call of that batch is still parked in the service
 * (not acknowledged). Each release the Host sends (a wrapped executor sees
 * it before the service does) must name a call whose response an fsync had
 * already made durable. Written-but-not-yet-synced does not count: the
 * durable set only grows when an fsync has resolved.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runTurn } from "../src/machines/run_turn.ts";
import type { AssistantMessage, ProviderRequest } from "../src/provider/provider.ts";
import type { ToolCall } from "../src/review/tool_call.ts";
import { BuiltinToolSource } from "../src/service/builtin/builtin_tool_source.ts";
import { ExecutionService } from "../src/service/execution_service.ts";
import type { ExecutionHandle, Executor } from "../src/service/executor.ts";
import { McpExecutor } from "../src/service/mcp_executor.ts";
import { FileStreamStore } from "../src/stream/file_stream_store.ts";
import { CollectingNoticeSink } from "../src/testing/collecting_notice_sink.ts";
import { fixedClock } from "../src/testing/fixed_clock.ts";
import { scriptedPrompter } from "../src/testing/scripted_prompter.ts";
import { policies } from "./machines_fixtures.ts";

/** Calls per cycle: a single call, a handful, and a large batch. */
const BATCHES = [1, 5, 70];

type Entry =
  | { readonly kind: "synced"; readonly batch: readonly string[] }
  | { readonly kind: "released"; readonly id: string };

/** The response ids of the log at `path`. */
async function responseIds(path: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const line of (await Deno.readTextFile(path)).split("\n")) {
    if (line === "") continue;
    const event = JSON.parse(line) as { type: string; id?: string };
    if (event.type === "tool_call_response") ids.add(event.id!);
  }
  return ids;
}

Deno.test("no call of a batch is acknowledged before the fsync of that batch has resolved", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway_ordering_" });
  const root = join(dir, "conversations");
  const path = join(root, "c1", "events.jsonl");
  const source = new BuiltinToolSource({ cwd: dir, tools: [] }).register({
    name: "echo",
    description: "Echoes its tag.",
    inputSchema: { type: "object" },
    run: (args) => Promise.resolve(`result of ${String(args.tag)} `.repeat(50)),
  });
  const service = new ExecutionService({ sources: [source], barrierFor: () => "record" });
  await service.start();
  const mcp = await McpExecutor.connect(service);

  const log: Entry[] = [];
  const durable = new Set<string>();
  const problems: string[] = [];
  const store = new FileStreamStore(root, {
    sync: async (file) => {
      await file.syncData();
      // The fsync has resolved: whatever the log holds now is durable.
      const batch = [...await responseIds(path)].filter((id) => !durable.has(id));
      const parked = new Set(service.parked().map((call) => call.callId));
      for (const id of batch) {
        durable.add(id);
        if (!parked.has(id)) problems.push(`${id} was acknowledged before its fsync resolved`);
      }
      log.push({ kind: "synced", batch });
    },
  });
  const executor: Executor = {
    has: (tool) => mcp.has(tool),
    start: (call, options): ExecutionHandle => {
      const handle = mcp.start(call, options);
      return {
        outcome: handle.outcome,
        release: (ack, recorded) => {
          if (!durable.has(call.id)) problems.push(`${call.id} was released before it was durable`);
          log.push({ kind: "released", id: call.id });
          return handle.release(ack, recorded);
        },
      };
    },
  };

  let cycle = 0;
  const provider = {
    complete(_request: ProviderRequest): Promise<AssistantMessage> {
      const count = BATCHES[cycle];
      cycle += 1;
      if (count === undefined) return Promise.resolve({ text: "done", toolCalls: [] });
      const toolCalls: ToolCall[] = Array.from({ length: count }, (_, i) => ({
        id: `c${cycle}_${i}`,
        name: "echo",
        arguments: { tag: `c${cycle}_${i}` },
      }));
      return Promise.resolve({ text: `${count} calls`, toolCalls });
    },
  };
  const stream = await store.open("c1");
  try {
    const output = await runTurn({
      turnId: "c1/1",
      prompt: "go",
      provider,
      tools: [{ name: "echo", description: "echo", inputSchema: { type: "object" } }],
      stream,
      executor,
      prompter: scriptedPrompter(),
      policyFor: policies(),
      noticeSink: new CollectingNoticeSink(),
      clock: fixedClock(),
    });
    assert.equal(output.status, "finished", output.reason);
  } finally {
    await stream.close();
    await mcp.close();
    await service.close();
    await Deno.remove(dir, { recursive: true });
  }

  assert.deepEqual(problems, []);
  const total = BATCHES.reduce((a, b) => a + b, 0);
  const released = log.filter((entry) => entry.kind === "released");
  assert.equal(released.length, total, "every call was released");
  // Each batch became durable in one fsync, and its releases all came after it.
  const batches = log.flatMap((entry) =>
    entry.kind === "synced" && entry.batch.length > 0 ? [entry] : []
  );
  assert.deepEqual(batches.map((entry) => entry.batch.length), BATCHES);
  for (const batch of batches) {
    const syncedAt = log.indexOf(batch);
    for (const id of batch.batch) {
      const at = log.findIndex((entry) => entry.kind === "released" && entry.id === id);
      assert.ok(at > syncedAt, `${id} released at ${at}, its fsync resolved at ${syncedAt}`);
    }
  }
});
