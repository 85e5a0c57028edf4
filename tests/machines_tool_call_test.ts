/**
 * The `toolCall` machine on its own: its states, and every route by which a
 * call ends in a slot (executed, prompted, lost, failed, cancelled, skipped).
 */

import assert from "node:assert/strict";
import { createActor, type InspectionEvent, waitFor } from "xstate";
import type { Review } from "../src/review/review.ts";
import type { ToolCallResponse } from "../src/review/tool_call_response.ts";
import type { Acknowledgement, Executor } from "../src/service/executor.ts";
import { MockExecutor } from "../src/testing/mock_executor.ts";
import { ExecutionLink } from "../src/machines/execution_link.ts";
import type { Prompter } from "../src/machines/prompter.ts";
import { toolCallMachine, type ToolCallOutput } from "../src/machines/tool_call_machine.ts";
import type { ToolPolicy } from "../src/machines/turn_dependencies.ts";
import { scriptedPrompter } from "../src/testing/scripted_prompter.ts";
import { CANCELLED, policy } from "./machines_fixtures.ts";

const CALL = { id: "call_1", name: "probe", arguments: { path: "." } };

interface Run {
  readonly review: Review;
  readonly output: ToolCallOutput;
  /** Top-level state names in the order they were entered (consecutive repeats dropped). */
  readonly states: string[];
}

/** The acknowledgement the commit would send for an uncut review. */
function ackOf(review: Review): { ack: Acknowledgement; recorded: ToolCallResponse } {
  const { id, content, isError } = review.response;
  return {
    ack: review.status === "accepted" ? { kind: "deliver" } : { kind: "replace", content, isError },
    recorded: { id, content, isError },
  };
}

/**
 * Runs one toolCall on its own: its slot goes to the test instead of a
 * phase (`writeSlot` provided), the turn's cancellation reaches the call's
 * link as the phase would pass it on, and once the call waits at its
 * barrier the test releases the link as the commit would.
 */
async function runToolCall(options: {
  executor: Executor;
  policy?: Partial<ToolPolicy>;
  prompter?: Prompter;
  signal?: AbortSignal;
}): Promise<Run> {
  const states: string[] = [];
  const inspect = (event: InspectionEvent) => {
    if (event.type !== "@xstate.microstep" && event.type !== "@xstate.snapshot") return;
    if (event.actorRef.sessionId !== event.rootId) return; // the toolCall itself, not its promise actors
    const value = (event.snapshot as { value?: unknown }).value;
    const top = typeof value === "string" ? value : Object.keys(value ?? {})[0];
    if (top !== undefined && states.at(-1) !== top) states.push(top);
  };
  let review: Review | undefined;
  const standalone = toolCallMachine.provide({
    actions: { writeSlot: ({ context }) => void (review = context.review) },
  });
  const link = new ExecutionLink(CALL.id, { executor: options.executor });
  const signal = options.signal;
  signal?.addEventListener("abort", () => link.cancel(signal.reason), { once: true });
  const actor = createActor(standalone, {
    input: {
      index: 0,
      call: CALL,
      policy: policy(options.policy),
      link,
      prompter: options.prompter ?? scriptedPrompter(),
    },
    inspect,
  });
  const done = waitFor(actor, (snapshot) => snapshot.status === "done");
  actor.start();
  await waitFor(actor, (snapshot) => snapshot.matches("barrierAcknowledge"));
  assert.ok(review !== undefined, "the slot is written before the barrier is acknowledged");
  const { ack, recorded } = ackOf(review);
  void link.release(ack, recorded);
  const snapshot = await done;
  assert.ok(snapshot.output !== undefined);
  return { review, output: snapshot.output, states };
}

Deno.test("toolCall passes through execute → resultPrompt → reviewSlot → barrierAcknowledge → released", async () => {
  const run = await runToolCall({ executor: new MockExecutor({ probe: "fine" }) });
  assert.deepEqual(run.states, [
    "execute",
    "resultPrompt",
    "reviewSlot",
    "barrierAcknowledge",
    "released",
  ]);
  assert.equal(run.review.status, "accepted");
  assert.deepEqual(run.output, {
    index: 0,
    callId: "call_1",
    delivery: { kind: "delivered", response: { id: "call_1", content: "fine", isError: false } },
  });
});

Deno.test("toolCall goes from execute straight to reviewSlot when the call is lost", async () => {
  const executor = new MockExecutor({ probe: { lost: "mcp.probe exited with code 1" } });
  const run = await runToolCall({ executor });
  assert.deepEqual(run.states, ["execute", "reviewSlot", "barrierAcknowledge", "released"]);
  assert.equal(run.review.status, "replaced");
  assert.deepEqual(run.review.response, {
    id: "call_1",
    content: "tool call lost: mcp.probe exited with code 1",
    isError: true,
  });
  // The executor delivers the synthesized response: what was recorded.
  assert.equal(run.output.delivery.kind, "delivered");
});

Deno.test("toolCall synthesizes a failed response when the executor cannot run the call", async () => {
  const run = await runToolCall({
    executor: new MockExecutor({ probe: { failed: "transport closed" } }),
  });
  assert.equal(run.review.response.content, "tool call failed: transport closed");
  assert.equal(run.review.response.isError, true);
});

Deno.test("toolCall records a thrown start() as a failed call and still releases", async () => {
  const executor: Executor = {
    has: () => true,
    start: () => {
      throw new Error("executor is closed");
    },
  };
  const run = await runToolCall({ executor });
  assert.equal(run.review.response.content, "tool call failed: executor is closed");
  assert.deepEqual(run.output.delivery, {
    kind: "delivered",
    response: { id: "call_1", content: "tool call failed: executor is closed", isError: true },
  });
});

Deno.test("toolCall records the cancellation response when the signal aborts during execution", async () => {
  const controller = new AbortController();
  const executor = new MockExecutor({
    probe: () => {
      controller.abort(new Error("Ctrl-C"));
      return new Promise<never>(() => {});
    },
  });
  const run = await runToolCall({ executor, signal: controller.signal });
  assert.deepEqual(run.review.response, { id: "call_1", content: CANCELLED, isError: true });
  assert.deepEqual(run.states, ["execute", "reviewSlot", "barrierAcknowledge", "released"]);
  assert.equal(run.output.delivery.kind, "delivered");
  assert.equal(executor.deliveryOf("call_1")?.kind, "delivered");
});

Deno.test("toolCall asks under result = ask and gives the prompter the raw response", async () => {
  const big = "r".repeat(400_000);
  const prompter = scriptedPrompter({ ask: () => Promise.resolve({ kind: "deliver" }) });
  const run = await runToolCall({
    executor: new MockExecutor({ probe: big }),
    policy: { result: "ask" },
    prompter,
  });
  assert.deepEqual(prompter.seen, ["ask call_1 400000"]);
  assert.equal(run.review.status, "accepted");
  assert.equal(run.review.response.content, big);
});

Deno.test("toolCall replaces the result with the person's edit and drops non-text content", async () => {
  const executor = new MockExecutor({
    probe: {
      mcp: {
        content: [{ type: "text", text: "original" }, {
          type: "image",
          data: "AA==",
          mimeType: "image/png",
        }],
      },
    },
  });
  const prompter = scriptedPrompter({
    edit: () => Promise.resolve({ kind: "edit", content: "edited" }),
  });
  const run = await runToolCall({ executor, policy: { result: "edit" }, prompter });
  assert.deepEqual(prompter.seen, ["edit call_1 32"]);
  assert.equal(run.review.status, "replaced");
  assert.deepEqual(run.review.response, { id: "call_1", content: "edited", isError: false });
  assert.deepEqual(run.output.delivery, {
    kind: "delivered",
    response: { id: "call_1", content: "edited", isError: false },
  });
});

Deno.test("toolCall treats an unchanged edit as delivering the offer", async () => {
  const prompter = scriptedPrompter({
    edit: (_, content) => Promise.resolve({ kind: "edit", content }),
  });
  const run = await runToolCall({
    executor: new MockExecutor({ probe: "same" }),
    policy: { result: "edit" },
    prompter,
  });
  assert.equal(run.review.status, "accepted");
});

Deno.test("toolCall records a skipped result when the person skips it", async () => {
  const prompter = scriptedPrompter({ ask: () => Promise.resolve({ kind: "skip" }) });
  const run = await runToolCall({
    executor: new MockExecutor({ probe: "secret" }),
    policy: { result: "ask" },
    prompter,
  });
  assert.deepEqual(run.review.response, {
    id: "call_1",
    content: "The user skipped this tool call's result.",
    isError: true,
  });
});

Deno.test("toolCall synthesizes an error review when the prompter fails", async () => {
  const prompter = scriptedPrompter({ ask: () => Promise.reject(new Error("no terminal")) });
  const run = await runToolCall({
    executor: new MockExecutor({ probe: "x" }),
    policy: { result: "ask" },
    prompter,
  });
  assert.deepEqual(run.review.response, {
    id: "call_1",
    content: "the result prompt failed: no terminal",
    isError: true,
  });
});

Deno.test("toolCall records the cancellation response when cancelled while prompting, even if the prompter ignores it", async () => {
  const controller = new AbortController();
  const prompter = scriptedPrompter({
    ask: () => {
      queueMicrotask(() => controller.abort());
      return new Promise(() => {}); // never answers, ignores the signal
    },
  });
  const run = await runToolCall({
    executor: new MockExecutor({ probe: "x" }),
    policy: { result: "ask" },
    prompter,
    signal: controller.signal,
  });
  assert.deepEqual(run.review.response, { id: "call_1", content: CANCELLED, isError: true });
  // The parked result is not delivered: the acknowledgement replaces it.
  assert.equal(run.output.delivery.kind, "delivered");
  assert.equal(
    run.output.delivery.kind === "delivered" && run.output.delivery.response.content,
    CANCELLED,
  );
});

Deno.test("toolCall withholds the result under result = skip", async () => {
  const run = await runToolCall({
    executor: new MockExecutor({ probe: "x" }),
    policy: { result: "skip" },
  });
  assert.deepEqual(run.review.response, {
    id: "call_1",
    content: 'The tool ran; its result is not shared with the assistant (result = "skip").',
    isError: false,
  });
});

Deno.test("toolCall does not run a call under run = skip", async () => {
  const executor = new MockExecutor({ probe: "x" });
  const run = await runToolCall({ executor, policy: { run: "skip" } });
  assert.equal(executor.started.length, 0);
  assert.equal(run.review.response.content, "The user skipped this tool call.");
  // No executor handle: the runtime, its own caller, gets what was recorded.
  assert.deepEqual(run.output.delivery, {
    kind: "delivered",
    response: { id: "call_1", content: "The user skipped this tool call.", isError: true },
  });
});

Deno.test("toolCall runs with edited arguments under run = edit", async () => {
  const executor = new MockExecutor({ probe: (call) => JSON.stringify(call.arguments) });
  const prompter = scriptedPrompter({
    approveRun: () => Promise.resolve({ kind: "edit", arguments: { path: "/tmp" } }),
  });
  const run = await runToolCall({ executor, policy: { run: "edit" }, prompter });
  assert.deepEqual(prompter.seen, ["approve call_1 edit"]);
  assert.equal(run.review.response.content, '{"path":"/tmp"}');
});

Deno.test("toolCall refuses to run under run = ask when the prompter cannot ask", async () => {
  const executor = new MockExecutor({ probe: "x" });
  const run = await runToolCall({ executor, policy: { run: "ask" } });
  assert.equal(executor.started.length, 0);
  assert.deepEqual(run.review.response, {
    id: "call_1",
    content:
      'the run prompt failed: tool probe needs approval (run = "ask") but the prompter cannot ask',
    isError: true,
  });
});

Deno.test("toolCall reports a delivery that differs from what was recorded", async () => {
  const executor = new MockExecutor({ probe: { result: "abc", tamper: (text) => `${text}!` } });
  const run = await runToolCall({ executor });
  assert.deepEqual(run.output.delivery, { kind: "mismatch", expected: "abc", received: "abc!" });
});
