import assert from "node:assert/strict";
import { parseConfig } from "../config/parse_config.ts";
import { cachedPolicies } from "../runtime/tool_policies.ts";
import type { ExecutionHandle } from "../service/executor.ts";
import { triageCalls } from "./triage_calls.ts";

const never = new AbortController().signal;
const policyFor = cachedPolicies(parseConfig(""));

/** A running call's handle that parks `text` at once. */
function handle(text: string): ExecutionHandle {
  return {
    outcome: Promise.resolve({
      kind: "executed",
      response: { id: "j", content: text, isError: false },
    }),
    release: () => Promise.resolve({ kind: "failed", message: "not under test" }),
  };
}

Deno.test("triageCalls() takes joined calls through their handles, with no executor at all", async () => {
  const records = triageCalls([], [
    { call: { id: "j1", name: "echo", arguments: {} }, handle: handle("one") },
    { call: { id: "j2", name: "gone", arguments: {} }, handle: handle(""), unavailable: true },
  ], { policyFor, available: ["echo"], signal: never });
  assert.deepEqual(records.map(({ index, route }) => [index, route]), [
    [0, "joined"],
    [1, "answered"],
  ]);
  assert.equal(
    records[1]?.review?.response.content,
    "tool gone is not available (available tools: echo)",
  );
  const outcome = await records[0]?.link?.start(records[0].call);
  assert.deepEqual(outcome, {
    kind: "executed",
    response: { id: "j", content: "one", isError: false },
  });
});

Deno.test("triageCalls() refuses calls of the batch's own when it has no executor to run them", () => {
  assert.throws(
    () =>
      triageCalls([{ id: "c1", name: "echo", arguments: {} }], [], {
        policyFor,
        available: [],
        signal: never,
      }),
    { name: "TypeError", message: "a phase with calls of its own needs an executor (1 to run)" },
  );
});
