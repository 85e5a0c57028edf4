import assert from "node:assert/strict";
import { setImmediate } from "node:timers";
import type { ToolCall } from "../review/tool_call.ts";
import { SizeThreshold } from "../size/size_threshold.ts";
import { MockExecutor } from "../testing/mock_executor.ts";
import type { CallRecord } from "./call_record.ts";
import { ExecutionLink } from "./execution_link.ts";
import { runUnattendedCalls, START_SLICE } from "./run_unattended_calls.ts";
import type { ToolPolicy } from "./turn_dependencies.ts";

const POLICY: ToolPolicy = {
  result: "unattended",
  run: "unattended",
  sizeThreshold: SizeThreshold.DEFAULT,
  cancellationResponse: "cancelled",
};

function records(executor: MockExecutor, count: number): CallRecord[] {
  return Array.from({ length: count }, (_, index): CallRecord => {
    const call: ToolCall = { id: `call_${index}`, name: "echo", arguments: {} };
    return {
      index,
      call,
      route: "unattended",
      policy: POLICY,
      link: new ExecutionLink(call.id, { executor }),
      review: undefined,
    };
  });
}

/** Resolves after the macrotask that follows the current one. */
function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

Deno.test("runUnattendedCalls() starts a batch a slice at a time and reviews every call in order", async () => {
  const executor = new MockExecutor({ echo: (call) => `done ${call.id}` });
  const count = START_SLICE * 2 + 5;
  const running = runUnattendedCalls({
    input: { records: records(executor, count) },
    signal: new AbortController().signal,
  });
  assert.equal(executor.started.length, START_SLICE, "the first slice starts at once");
  const reviews = await running;
  assert.equal(executor.started.length, count);
  assert.deepEqual(
    reviews.map(({ index, review }) => [index, review.status, review.response.content]),
    Array.from({ length: count }, (_, i) => [i, "accepted", `done call_${i}`]),
  );
});

Deno.test("runUnattendedCalls() starts no further slice once its phase stopped", async () => {
  const executor = new MockExecutor({ echo: "fine" });
  const stopped = new AbortController();
  const running = runUnattendedCalls({
    input: { records: records(executor, START_SLICE * 3) },
    signal: stopped.signal,
  });
  let settled = false;
  void running.finally(() => settled = true);
  assert.equal(executor.started.length, START_SLICE);
  stopped.abort();
  await nextMacrotask();
  await nextMacrotask();
  assert.equal(executor.started.length, START_SLICE, "no call started after the stop");
  assert.equal(settled, false, "a stopped batch never reports its reviews");
});

Deno.test("runUnattendedCalls() resolves an empty batch at once", async () => {
  const reviews = await runUnattendedCalls({
    input: { records: [] },
    signal: new AbortController().signal,
  });
  assert.deepEqual(reviews, []);
});
