import assert from "node:assert/strict";
import { setImmediate } from "node:timers";
import { BuiltinToolSource } from "./builtin/builtin_tool_source.ts";
import {
  CALL_ID_META_KEY,
  DELIVERY_SLICE,
  ExecutionService,
  type ParkWaiter,
} from "./execution_service.ts";
import type { CallToolResult } from "./sdk.ts";
import { McpExecutor } from "./mcp_executor.ts";
import type { ParkedCall } from "./parked_call.ts";

async function fixture() {
  const source = new BuiltinToolSource({ cwd: ".", tools: [] }).register({
    name: "echo",
    description: "echo",
    inputSchema: { type: "object" },
    run: () => Promise.resolve("hello"),
  });
  const service = new ExecutionService({ sources: [source], barrierFor: () => "record" });
  await service.start();
  const executor = await McpExecutor.connect(service);
  return {
    service,
    executor,
    async [Symbol.asyncDispose]() {
      await executor.close();
      await service.close();
    },
  };
}

function waiter() {
  const seen: (ParkedCall | TypeError)[] = [];
  const callbacks: ParkWaiter = {
    resolve: (call) => void seen.push(call),
    reject: (error) => void seen.push(error),
  };
  return { seen, callbacks };
}

Deno.test("whenParked() calls back when the call parks, and at once once it has", async () => {
  await using f = await fixture();
  const before = waiter();
  f.service.whenParked("call_1", before.callbacks);
  const handle = f.executor.start({ id: "call_1", name: "echo", arguments: {} }, {
    signal: new AbortController().signal,
  });
  await handle.outcome;
  assert.equal(before.seen.length, 1);
  const parked = before.seen[0] as ParkedCall;
  assert.equal(parked.callId, "call_1");
  const after = waiter();
  f.service.whenParked("call_1", after.callbacks);
  assert.deepEqual(after.seen, [parked]);
  const recorded = { id: "call_1", content: "hello", isError: false };
  assert.equal((await handle.release({ kind: "deliver" }, recorded)).kind, "delivered");
});

Deno.test("whenParked() rejects when the service gives up on a call that never arrives", async () => {
  await using f = await fixture();
  const w = waiter();
  f.service.whenParked("call_9", w.callbacks);
  f.service.forget("call_9");
  assert.equal(w.seen.length, 1);
  assert.ok(w.seen[0] instanceof TypeError);
  assert.match((w.seen[0] as TypeError).message, /never reached the service/);
});

Deno.test("acknowledge() hands a batch its results a slice at a time, each slice a macrotask apart", async () => {
  await using f = await fixture();
  const count = DELIVERY_SLICE * 2 + 5;
  const results: (CallToolResult | undefined)[] = new Array(count);
  for (let i = 0; i < count; i++) {
    void f.service.callTool(
      {
        method: "tools/call",
        params: { name: "echo", arguments: {}, _meta: { [CALL_ID_META_KEY]: `c${i}` } },
      },
      { signal: new AbortController().signal },
    ).then((result) => results[i] = result);
  }
  await Promise.all(Array.from({ length: count }, (_, i) => f.service.waitParked(`c${i}`)));
  for (let i = 0; i < count; i++) f.service.acknowledge(`c${i}`, { kind: "deliver" });
  const delivered = () => results.filter((result) => result !== undefined).length;
  assert.equal(delivered(), 0, "nothing is handed over within acknowledge()");
  // Microtasks alone: the first slice, and nothing more.
  for (let turn = 0; turn < 20; turn++) await null;
  assert.equal(delivered(), DELIVERY_SLICE);
  // The next slice goes a macrotask later.
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(delivered(), DELIVERY_SLICE * 2);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(delivered(), count);
  assert.deepEqual(results[count - 1], { content: [{ type: "text", text: "hello" }] });
  assert.deepEqual(f.service.parked(), []);
});

Deno.test("close() waits for the results of acknowledged calls still queued", async () => {
  const f = await fixture();
  const results: CallToolResult[] = [];
  const count = DELIVERY_SLICE * 3;
  for (let i = 0; i < count; i++) {
    void f.service.callTool(
      {
        method: "tools/call",
        params: { name: "echo", arguments: {}, _meta: { [CALL_ID_META_KEY]: `c${i}` } },
      },
      { signal: new AbortController().signal },
    ).then((result) => results.push(result));
  }
  await Promise.all(Array.from({ length: count }, (_, i) => f.service.waitParked(`c${i}`)));
  for (let i = 0; i < count; i++) f.service.acknowledge(`c${i}`, { kind: "deliver" });
  await f.executor.close();
  await f.service.close();
  assert.equal(results.length, count);
});
