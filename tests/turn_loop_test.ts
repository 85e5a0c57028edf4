/**
 * The turn loop end to end with a `MockExecutor`, a scripted provider and
 * the in-memory store: what is recorded is capped, what is delivered is what
 * is recorded, and every other route (unknown tool, skip, cancellation,
 * provider failure) ends in a recorded response or a recorded `turn_end`.
 */

import assert from "node:assert/strict";
import { setImmediate } from "node:timers";
import { createActor } from "xstate";
import { turnMachine } from "../src/machines/turn_machine.ts";
import type { Executor } from "../src/service/executor.ts";
import type { SizeThreshold } from "../src/size/size_threshold.ts";
import { MockExecutor } from "../src/testing/mock_executor.ts";
import { runTurn } from "../src/machines/run_turn.ts";
import { START_SLICE } from "../src/machines/run_unattended_calls.ts";
import { scriptedPrompter } from "../src/testing/scripted_prompter.ts";
import type { ToolCallResponseEvent } from "../src/stream/events.ts";
import {
  answer,
  bytesOf,
  callsMessage,
  CANCELLED,
  expectedCut,
  policies,
  responsesOf,
  turnHarness,
} from "./machines_fixtures.ts";

const KB = 1024;
const MB = 1024 * KB;

/** `mock`'s own handles, calling `then` once each release has been delivered. */
function afterEachRelease(mock: MockExecutor, then: () => void): Executor {
  return {
    has: (tool) => mock.has(tool),
    start: (call, options) => {
      const handle = mock.start(call, options);
      return {
        outcome: handle.outcome,
        release: async (ack, recorded) => {
          const delivery = await handle.release(ack, recorded);
          then();
          return delivery;
        },
      };
    },
  };
}

function only(responses: ToolCallResponseEvent[]): ToolCallResponseEvent {
  assert.equal(responses.length, 1);
  return responses[0] as ToolCallResponseEvent;
}

Deno.test("turn caps an oversized unattended result at the 256KB threshold and delivers what it recorded", async () => {
  const content = "x".repeat(600 * KB);
  const executor = new MockExecutor({ big_tool: content });
  const h = await turnHarness({
    steps: [callsMessage("Let me look.", [["call_1", "big_tool"]]), answer("All done.")],
    executor,
    tools: ["big_tool"],
  });

  const output = await runTurn(h.input);

  assert.equal(output.status, "finished");
  assert.equal(output.cycles, 2);
  assert.equal(output.text, "All done.");
  const recorded = only(responsesOf(h.store.durableEvents("conversation-1")));
  const marker = "... [truncated, 600.0 KB → 256.0 KB]";
  assert.ok(bytesOf(recorded.content) <= 262_144);
  assert.ok(recorded.content.endsWith(`\n${marker}`));
  assert.equal(recorded.content, expectedCut(content, 262_144, marker));
  assert.equal(recorded.is_error, false);
  assert.deepEqual(h.sink.lines, [
    "big_tool: sent 256.0 KB of 600.0 KB to the assistant (size_threshold)",
  ]);
  assert.deepEqual(output.notices, h.sink.facts);
  // Recorded and delivered are one decision.
  const delivery = executor.deliveryOf("call_1");
  assert.equal(delivery?.kind, "delivered");
  assert.equal(delivery.kind === "delivered" && delivery.response.content, recorded.content);
  assert.deepEqual(executor.releases[0]?.ack, {
    kind: "replace",
    content: recorded.content,
    isError: false,
  });
  // The next request carries the recorded (capped) response.
  const second = h.provider.requests[1];
  assert.deepEqual(second?.messages.at(-1), {
    role: "tool",
    id: "call_1",
    content: recorded.content,
    isError: false,
  });
  assert.deepEqual(output.errors, []);
});

Deno.test("turn records its events in order and flushes them", async () => {
  const executor = new MockExecutor({ probe: "ok" });
  const h = await turnHarness({
    steps: [callsMessage("Looking.", [["call_1", "probe"]]), answer("Done.")],
    executor,
    tools: ["probe"],
  });
  await runTurn(h.input);
  const events = h.store.durableEvents("conversation-1");
  assert.deepEqual(events.map((event) => event.type), [
    "turn_start",
    "chat_request",
    "chat_response",
    "tool_call_request",
    "tool_call_response",
    "chat_request",
    "chat_response",
    "turn_end",
  ]);
  assert.deepEqual(events[0], {
    type: "turn_start",
    turn_id: "turn-1",
    prompt: "do the thing",
    at: "2025-01-01T00:00:00.000Z",
  });
  assert.deepEqual(events[4], {
    type: "tool_call_response",
    id: "call_1",
    content: "ok",
    is_error: false,
  });
  assert.deepEqual(events.at(-1), {
    type: "turn_end",
    turn_id: "turn-1",
    status: "finished",
    at: "2025-01-01T00:00:00.000Z",
  });
  const requests = events.filter((event) => event.type === "chat_request");
  assert.ok(requests.every((event) => event.type === "chat_request" && event.bytes > 0));
  // An accepted review is delivered by the service itself.
  assert.deepEqual(executor.releases[0]?.ack, { kind: "deliver" });
});

Deno.test("turn caps a 5 MB edit under result = edit within the threshold", async () => {
  const edited = "e".repeat(5 * MB);
  const executor = new MockExecutor({ big_tool: "short original" });
  const prompter = scriptedPrompter({
    edit: () => Promise.resolve({ kind: "edit", content: edited }),
  });
  const h = await turnHarness({
    steps: [callsMessage("Editing.", [["call_1", "big_tool"]]), answer("Done.")],
    executor,
    prompter,
    policyFor: policies({ big_tool: { result: "edit" } }),
    tools: ["big_tool"],
  });

  const output = await runTurn(h.input);

  assert.equal(output.status, "finished");
  assert.deepEqual(prompter.seen, ["edit call_1 14"]);
  const recorded = only(responsesOf(h.store.durableEvents("conversation-1")));
  const marker = "... [truncated, 5.0 MB → 256.0 KB]";
  assert.ok(bytesOf(recorded.content) <= 262_144);
  assert.equal(recorded.content, expectedCut(edited, 262_144, marker));
  assert.deepEqual(h.sink.lines, [
    "big_tool: sent 256.0 KB of 5.0 MB to the assistant (size_threshold)",
  ]);
  const delivery = executor.deliveryOf("call_1");
  assert.equal(delivery?.kind === "delivered" && delivery.response.content, recorded.content);
});

Deno.test("turn records an unavailable-tool response and continues", async () => {
  const executor = new MockExecutor({ probe: "ok" });
  const h = await turnHarness({
    steps: [callsMessage("Trying.", [["call_1", "nope"], ["call_2", "probe"]]), answer("Done.")],
    executor,
    tools: ["probe", "other"],
  });
  const output = await runTurn(h.input);
  assert.equal(output.status, "finished");
  assert.equal(output.cycles, 2);
  assert.deepEqual(responsesOf(h.store.durableEvents("conversation-1")), [
    {
      type: "tool_call_response",
      id: "call_1",
      content: "tool nope is not available (available tools: probe, other)",
      is_error: true,
    },
    { type: "tool_call_response", id: "call_2", content: "ok", is_error: false },
  ]);
  assert.deepEqual(executor.started.map((call) => call.id), ["call_2"]);
});

Deno.test("turn records a skipped response under run = skip without running the call", async () => {
  const executor = new MockExecutor({ rm_rf: "gone" });
  const h = await turnHarness({
    steps: [callsMessage("Cleaning.", [["call_1", "rm_rf"]]), answer("Done.")],
    executor,
    policyFor: policies({ rm_rf: { run: "skip" } }),
    tools: ["rm_rf"],
  });
  const output = await runTurn(h.input);
  assert.equal(output.status, "finished");
  assert.equal(executor.started.length, 0);
  assert.deepEqual(responsesOf(h.store.durableEvents("conversation-1")), [
    {
      type: "tool_call_response",
      id: "call_1",
      content: "The user skipped this tool call.",
      is_error: true,
    },
  ]);
});

Deno.test("turn records and delivers the cancellation response when its signal aborts", async () => {
  const controller = new AbortController();
  const executor = new MockExecutor({
    slow: () => new Promise<never>(() => {}),
    fast: "quick",
  });
  const h = await turnHarness({
    steps: [
      callsMessage("Waiting.", [["call_1", "slow"], ["call_2", "fast"]]),
      answer("never asked"),
    ],
    executor,
    tools: ["slow", "fast"],
    signal: controller.signal,
  });
  // Ctrl-C once the fast call has its result and the slow one still hangs.
  const output = await runTurn({
    ...h.input,
    observer: {
      toolCallResult: (call) => {
        if (call.id === "call_2") controller.abort(new Error("Ctrl-C"));
      },
    },
  });

  assert.equal(output.status, "failed");
  assert.equal(output.reason, "the turn was cancelled");
  assert.equal(h.provider.requests.length, 1);
  const events = h.store.durableEvents("conversation-1");
  assert.deepEqual(responsesOf(events), [
    { type: "tool_call_response", id: "call_1", content: CANCELLED, is_error: true },
    { type: "tool_call_response", id: "call_2", content: "quick", is_error: false },
  ]);
  const delivery = executor.deliveryOf("call_1");
  assert.equal(delivery?.kind === "delivered" && delivery.response.content, CANCELLED);
  assert.deepEqual(events.at(-1), {
    type: "turn_end",
    turn_id: "turn-1",
    status: "failed",
    reason: "the turn was cancelled",
    at: "2025-01-01T00:00:00.000Z",
  });
});

Deno.test("turn fails on a provider error and records turn_end with its message", async () => {
  const executor = new MockExecutor({});
  const h = await turnHarness({ steps: [new Error("prompt is too long")], executor });

  const output = await runTurn(h.input);

  assert.equal(output.status, "failed");
  assert.equal(output.reason, "prompt is too long");
  assert.equal(output.error?.code, "provider_failed");
  assert.equal(output.error?.message, "prompt is too long");
  const events = h.store.durableEvents("conversation-1");
  assert.deepEqual(events.map((event) => event.type), ["turn_start", "chat_request", "turn_end"]);
  assert.deepEqual(events.at(-1), {
    type: "turn_end",
    turn_id: "turn-1",
    status: "failed",
    reason: "prompt is too long",
    at: "2025-01-01T00:00:00.000Z",
  });
});

Deno.test("turn reports a delivery mismatch as an error and records nothing new", async () => {
  const executor = new MockExecutor({
    probe: { result: "abc", tamper: (text) => text.toUpperCase() },
  });
  const h = await turnHarness({
    steps: [callsMessage("Looking.", [["call_1", "probe"]]), answer("Done.")],
    executor,
    tools: ["probe"],
  });
  const output = await runTurn(h.input);
  assert.equal(output.status, "finished");
  assert.equal(output.errors.length, 1);
  assert.equal(output.errors[0]?.code, "delivery_mismatch");
  assert.deepEqual(output.errors[0]?.details, {
    callId: "call_1",
    expected: "abc",
    received: "ABC",
  });
  assert.deepEqual(responsesOf(h.store.durableEvents("conversation-1")).map((r) => r.content), [
    "abc",
  ]);
});

Deno.test("turn does not run a repeated call id", async () => {
  const executor = new MockExecutor({ probe: "ok" });
  const h = await turnHarness({
    steps: [callsMessage("Twice.", [["call_1", "probe"], ["call_1", "probe"]]), answer("Done.")],
    executor,
    tools: ["probe"],
  });
  await runTurn(h.input);
  assert.equal(executor.started.length, 1);
  assert.deepEqual(responsesOf(h.store.durableEvents("conversation-1")).map((r) => r.content), [
    "ok",
    "tool call id call_1 repeats an earlier call of the same message",
  ]);
});

Deno.test("turn fails once it reaches its cycle limit, with every call answered", async () => {
  const executor = new MockExecutor({ probe: "again" });
  const loop = callsMessage("Again.", [["call_x", "probe"]]);
  const h = await turnHarness({
    steps: [
      { ...loop, toolCalls: [{ id: "c1", name: "probe", arguments: {} }] },
      { ...loop, toolCalls: [{ id: "c2", name: "probe", arguments: {} }] },
      answer("never"),
    ],
    executor,
    tools: ["probe"],
    maxCycles: 2,
  });
  const output = await runTurn(h.input);
  assert.equal(output.status, "failed");
  assert.equal(output.reason, "the turn reached its limit of 2 cycles");
  assert.equal(output.cycles, 2);
  assert.equal(responsesOf(h.store.durableEvents("conversation-1")).length, 2);
});

Deno.test("runTurn streams inspection events of the turn and its children", async () => {
  const executor = new MockExecutor({ probe: "ok", checked: "ok" });
  const h = await turnHarness({
    steps: [
      callsMessage("Looking.", [["call_1", "probe"], ["call_2", "checked"]]),
      answer("Done."),
    ],
    executor,
    tools: ["probe", "checked"],
    policyFor: policies({ checked: { result: "ask" } }),
    prompter: scriptedPrompter({ ask: () => Promise.resolve({ kind: "deliver" }) }),
  });
  const ids = new Set<string>();
  await runTurn(h.input, {
    inspect: (event) => {
      // Inspection types only promise an ActorRefLike; XState passes the actor.
      const ref = event.actorRef;
      if (event.type === "@xstate.actor" && "id" in ref && typeof ref.id === "string") {
        ids.add(ref.id);
      }
    },
  });
  const seen = [...ids].join(", ");
  for (
    const id of ["requestModel", "phase", "runUnattendedCalls", "capSlots", "commit", "call.1"]
  ) {
    assert.ok(ids.has(id), `${id} in ${seen}`);
  }
  // The call nobody is asked about runs without an actor of its own.
  assert.ok(!ids.has("call.0"), seen);
});

Deno.test("turn answers a phase-end fault with error responses, recorded as delivered", async () => {
  const executor = new MockExecutor({ probe: "x".repeat(2000), other: "fine" });
  // A threshold whose limit is not a whole number makes the cut throw: a stand-in for a bug.
  const broken = { isUnlimited: false, bytes: { bytes: 1000.5 } } as unknown as SizeThreshold;
  const h = await turnHarness({
    steps: [callsMessage("Looking.", [["call_1", "probe"], ["call_2", "other"]]), answer("Done.")],
    executor,
    policyFor: policies({ probe: { sizeThreshold: broken } }),
    tools: ["probe", "other"],
  });
  const output = await runTurn(h.input);
  assert.equal(output.status, "finished");
  const responses = responsesOf(h.store.durableEvents("conversation-1"));
  assert.equal(responses.length, 2);
  for (const response of responses) {
    assert.match(response.content, /^tool call failed: the phase end failed: capBytes must be/);
    assert.equal(response.is_error, true);
    const delivery = executor.deliveryOf(response.id);
    assert.equal(delivery?.kind === "delivered" && delivery.response.content, response.content);
  }
});

Deno.test("a turn stopped mid-call cancels its calls and releases them with a failure", async () => {
  const started = Promise.withResolvers<void>();
  const mock = new MockExecutor({
    hang: () => {
      started.resolve();
      return new Promise<never>(() => {});
    },
  });
  // Settled by the first release.
  const released = Promise.withResolvers<void>();
  const executor = afterEachRelease(mock, () => released.resolve());
  const h = await turnHarness({
    steps: [callsMessage("Waiting.", [["call_1", "hang"]])],
    executor,
    tools: ["hang"],
  });
  const actor = createActor(turnMachine, { input: h.input });
  actor.start();
  await started.promise;
  actor.stop();
  await released.promise;
  assert.deepEqual(mock.releases.map(({ ack, delivery }) => [ack, delivery.kind]), [
    [
      { kind: "fail", message: "the call call_1 was abandoned before its result was recorded" },
      "failed",
    ],
  ]);
});

Deno.test("turn answers a call whose policy cannot be resolved with an error response", async () => {
  const executor = new MockExecutor({ probe: "never runs", other: "fine" });
  const base = policies();
  const h = await turnHarness({
    steps: [callsMessage("Looking.", [["call_1", "probe"], ["call_2", "other"]]), answer("Done.")],
    executor,
    policyFor: (tool) => {
      if (tool === "probe") throw new Error("config exploded");
      return base(tool);
    },
    tools: ["probe", "other"],
  });
  const output = await runTurn(h.input);
  assert.equal(output.status, "finished");
  assert.deepEqual(executor.started.map(({ id }) => id), ["call_2"]);
  assert.deepEqual(responsesOf(h.store.durableEvents("conversation-1")).map((r) => r.content), [
    "tool call failed: the policy of tool probe could not be resolved: config exploded",
    "fine",
  ]);
});

Deno.test("turn tells its observer each answer, each started call and each raw, uncapped result, unknown tools included", async () => {
  const raw = "r".repeat(300 * KB);
  const executor = new MockExecutor({ big_tool: raw });
  const h = await turnHarness({
    steps: [
      callsMessage("Looking.", [["call_1", "big_tool"], ["call_2", "missing"]]),
      answer("Done."),
    ],
    executor,
    tools: ["big_tool"],
  });
  const told: string[] = [];
  await runTurn({
    ...h.input,
    observer: {
      assistant: (message, cycle) => told.push(`assistant ${cycle}: ${message.text}`),
      toolCallStarted: (call) => told.push(`started ${call.id}`),
      toolCallResult: (call, response) =>
        told.push(`result ${call.id}: ${response.content.length}`),
    },
  });
  // The unknown tool's call is answered without running: a result, never "started".
  const missing = told.find((line) => line.startsWith("result call_2: "));
  assert.ok(missing !== undefined, told.join("\n"));
  assert.deepEqual(told.filter((line) => line !== missing), [
    "assistant 0: Looking.",
    "started call_1",
    `result call_1: ${raw.length}`,
    "assistant 1: Done.",
  ]);
  assert.ok(told.indexOf(missing) < told.indexOf("assistant 1: Done."));
  // The assistant got the capped response all the same.
  const [recorded] = responsesOf(h.store.durableEvents("conversation-1"));
  assert.ok(recorded !== undefined && bytesOf(recorded.content) <= 262_144);
});

Deno.test("a throwing observer does not break the turn", async () => {
  const executor = new MockExecutor({ probe: "ok" });
  const h = await turnHarness({
    steps: [callsMessage("Looking.", [["call_1", "probe"]]), answer("Done.")],
    executor,
    tools: ["probe"],
  });
  const output = await runTurn({
    ...h.input,
    observer: {
      assistant: () => {
        throw new Error("terminal gone");
      },
      toolCallResult: () => {
        throw new Error("terminal gone");
      },
    },
  });
  assert.equal(output.status, "finished");
  assert.deepEqual(responsesOf(h.store.durableEvents("conversation-1")).map((r) => r.content), [
    "ok",
  ]);
});

Deno.test("a turn cancelled while its batch is still starting records and releases every call", async () => {
  const controller = new AbortController();
  const executor = new MockExecutor({ slow: () => new Promise<never>(() => {}) });
  const count = START_SLICE * 2 + 3;
  const ids = Array.from({ length: count }, (_, i) => `call_${i}`);
  const h = await turnHarness({
    steps: [callsMessage("Waiting.", ids.map((id) => [id, "slow"])), answer("never asked")],
    executor,
    tools: ["slow"],
    signal: controller.signal,
  });
  // Ctrl-C as the first call starts: the later slices start cancelled.
  const output = await runTurn({
    ...h.input,
    observer: { toolCallStarted: () => controller.abort(new Error("Ctrl-C")) },
  });
  assert.equal(output.status, "failed");
  assert.deepEqual(
    responsesOf(h.store.durableEvents("conversation-1")),
    ids.map((id) => ({ type: "tool_call_response", id, content: CANCELLED, is_error: true })),
  );
  assert.equal(executor.releases.length, count, "every call was released");
  assert.ok(executor.releases.every(({ delivery }) => delivery.kind === "delivered"));
});

Deno.test("a turn stopped while its batch is still starting starts no more calls and releases the started ones", async () => {
  const mock = new MockExecutor({ hang: () => new Promise<never>(() => {}) });
  // Settled once the first slice is released.
  const released = Promise.withResolvers<void>();
  const executor = afterEachRelease(mock, () => {
    if (mock.releases.length === START_SLICE) released.resolve();
  });
  const ids = Array.from({ length: START_SLICE * 3 }, (_, i) => `call_${i}`);
  const h = await turnHarness({
    steps: [callsMessage("Waiting.", ids.map((id) => [id, "hang"]))],
    executor,
    tools: ["hang"],
  });
  const firstSlice = Promise.withResolvers<void>();
  const actor = createActor(turnMachine, {
    input: {
      ...h.input,
      observer: {
        toolCallStarted: (call) => {
          if (call.id === `call_${START_SLICE - 1}`) firstSlice.resolve();
        },
      },
    },
  });
  actor.start();
  await firstSlice.promise;
  actor.stop();
  await released.promise;
  // The next slice was due one macrotask after the first: let it come.
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(mock.started.length, START_SLICE, "no call started after the stop");
  assert.deepEqual(
    mock.releases.map(({ call, delivery }) => [call.id, delivery.kind]),
    ids.slice(0, START_SLICE).map((id) => [id, "failed"]),
  );
});
