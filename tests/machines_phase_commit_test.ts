/**
 * The `phase` and `commit` machines on their own: the phase answers the
 * calls that do not run, caps every slot once with its own tool's threshold
 * in call order whatever the finishing order, and commits the batch; the
 * commit merges, records, flushes, reports notices only once the batch is
 * durable, and releases exactly the calls that have a link, the service's
 * own result only for accepted reviews. Calls started elsewhere can join a
 * phase and are capped, recorded and released with the others.
 */

import assert from "node:assert/strict";
import { createActor, type InspectionEvent, toPromise } from "xstate";
import type { CallRecord } from "../src/machines/call_record.ts";
import { commitMachine } from "../src/machines/commit_machine.ts";
import { ExecutionLink } from "../src/machines/execution_link.ts";
import { type PhaseInput, phaseMachine } from "../src/machines/phase_machine.ts";
import type { ToolCall } from "../src/review/tool_call.ts";
import { acceptedReview, replacedReview } from "../src/review/review.ts";
import { SizeThreshold } from "../src/size/size_threshold.ts";
import { MemoryStreamStore } from "../src/stream/memory_stream_store.ts";
import { CollectingNoticeSink } from "../src/testing/collecting_notice_sink.ts";
import { MockExecutor } from "../src/testing/mock_executor.ts";
import { scriptedPrompter } from "../src/testing/scripted_prompter.ts";
import { policies, responsesOf } from "./machines_fixtures.ts";

/** Records the top-level states of the root actor, in order. */
function topStates(rootStates: string[]) {
  return (event: InspectionEvent) => {
    if (event.type !== "@xstate.microstep" && event.type !== "@xstate.snapshot") return;
    if (event.actorRef.sessionId !== event.rootId) return;
    const push = (state: string) => rootStates.at(-1) !== state && rootStates.push(state);
    // An initial state left by an eventless transition shows only as that transition's source.
    if (event.type === "@xstate.microstep") {
      for (const transition of event._transitions) push(transition.source.key);
    }
    const value = (event.snapshot as { value?: unknown }).value;
    if (typeof value === "string") push(value);
  };
}

function calls(...names: string[]): ToolCall[] {
  return names.map((name, i) => ({ id: `c${i}`, name, arguments: {} }));
}

async function phaseInput(
  overrides: Partial<PhaseInput> & Pick<PhaseInput, "calls" | "executor">,
): Promise<{ input: PhaseInput; store: MemoryStreamStore; sink: CollectingNoticeSink }> {
  const store = new MemoryStreamStore();
  const sink = new CollectingNoticeSink();
  return {
    store,
    sink,
    input: {
      policyFor: policies(),
      available: [],
      prompter: scriptedPrompter(),
      stream: await store.open("c"),
      noticeSink: sink,
      ...overrides,
    },
  };
}

Deno.test("phase caps every slot with its tool's threshold in call order, whatever order the calls finish in, then commits", async () => {
  const fastDone = Promise.withResolvers<void>();
  const midDone = Promise.withResolvers<void>();
  const executor = new MockExecutor({
    // They finish fast, mid, slow: the reverse of their order in the message.
    slow: () => midDone.promise.then(() => "s".repeat(5000)),
    fast: () => {
      fastDone.resolve();
      return "fast result";
    },
    mid: async () => {
      await fastDone.promise;
      midDone.resolve();
      return "m".repeat(5000);
    },
  });
  const { input, store, sink } = await phaseInput({
    calls: calls("slow", "fast", "mid"),
    executor,
    policyFor: policies({ slow: { sizeThreshold: SizeThreshold.parse("1KB") } }),
  });
  const states: string[] = [];
  const actor = createActor(phaseMachine, { input, inspect: topStates(states) });
  const done = toPromise(actor);
  actor.start();
  const output = await done;

  assert.equal(output.status, "done");
  assert.deepEqual(output.recorded.map(({ id }) => id), ["c0", "c1", "c2"]);
  const [slow, fast, mid] = output.recorded;
  assert.ok(slow?.content.endsWith("\n... [truncated, 4.8 KB → 1.0 KB]"));
  assert.equal(fast?.content, "fast result");
  assert.equal(mid?.content, "m".repeat(5000), "256KB default threshold: whole");
  assert.deepEqual(
    responsesOf(store.durableEvents("c")),
    output.recorded.map((r) => ({
      type: "tool_call_response",
      id: r.id,
      content: r.content,
      is_error: r.isError,
    })),
  );
  assert.deepEqual(output.notices, [
    { tool: "slow", callId: "c0", originalBytes: 5000, capBytes: 1024, cause: "size_threshold" },
  ]);
  assert.deepEqual(sink.facts, output.notices);
  assert.deepEqual(
    executor.releases.map(({ call, ack }) => [call.id, ack.kind]),
    [
      ["c1", "deliver"],
      ["c2", "deliver"],
      ["c0", "replace"],
    ].sort((a, b) => (a[0] as string).localeCompare(b[0] as string)),
  );
  assert.deepEqual(output.deliveries.map(({ callId, delivery }) => [callId, delivery.kind]), [
    ["c0", "delivered"],
    ["c1", "delivered"],
    ["c2", "delivered"],
  ]);
  assert.deepEqual(states, ["executing", "capping", "committing", "released"]);
});

Deno.test("phase answers the calls that do not run, in call order, without reading a threshold", async () => {
  const executor = new MockExecutor({ probe: "ran", never: "never runs" });
  const { input, store } = await phaseInput({
    calls: [
      { id: "c0", name: "probe", arguments: {} },
      { id: "c1", name: "missing", arguments: {} },
      { id: "c0", name: "probe", arguments: {} },
      { id: "c3", name: "never", arguments: {} },
    ],
    executor,
    available: ["probe", "never"],
    policyFor: policies({ never: { run: "skip" } }),
  });
  const output = await toPromise(createActor(phaseMachine, { input }).start());
  assert.deepEqual(executor.started.map(({ id }) => id), ["c0"]);
  assert.deepEqual(responsesOf(store.durableEvents("c")).map(({ id, content }) => [id, content]), [
    ["c0", "ran"],
    ["c1", "tool missing is not available (available tools: probe, never)"],
    ["c0", "tool call id c0 repeats an earlier call of the same message"],
    ["c3", "The user skipped this tool call."],
  ]);
  // Only the call that ran was parked, so only it is released.
  assert.deepEqual(output.deliveries.map(({ callId }) => callId), ["c0"]);
});

Deno.test("phase keeps call order over a batch of many calls finishing in reverse", async () => {
  const n = 100;
  // Call i finishes only once call i + 1 has: the last call finishes first.
  const finished = Array.from({ length: n + 1 }, () => Promise.withResolvers<void>());
  finished[n]?.resolve();
  const executor = new MockExecutor({
    echo: async (call) => {
      const i = Number(call.id.slice(2));
      await finished[i + 1]?.promise;
      finished[i]?.resolve();
      return call.id;
    },
  });
  const batch = Array.from(
    { length: n },
    (_, i) => ({ id: `c_${i}`, name: "echo", arguments: {} }),
  );
  const { input } = await phaseInput({ calls: batch, executor });
  const output = await toPromise(createActor(phaseMachine, { input }).start());
  assert.deepEqual(output.recorded.map(({ content }) => content), batch.map(({ id }) => id));
  assert.deepEqual(output.deliveries.map(({ index }) => index), batch.map((_, i) => i));
  assert.ok(output.deliveries.every(({ delivery }) => delivery.kind === "delivered"));
});

Deno.test("phase with no calls commits an empty batch", async () => {
  const { input, store } = await phaseInput({ calls: [], executor: new MockExecutor({}) });
  const output = await toPromise(createActor(phaseMachine, { input }).start());
  assert.deepEqual(output, { status: "done", recorded: [], notices: [], deliveries: [] });
  assert.equal(store.flushCount, 1);
});

Deno.test("calls started elsewhere join a phase: capped, recorded and released with the others, never started again", async () => {
  // An outside client's calls, already running in the executor (as the
  // execution service runs the calls of `spillway serve` clients).
  const outside = new MockExecutor({ big: "b".repeat(3000), small: "s" });
  const joined = [
    { id: "x1", name: "big", arguments: {} },
    { id: "x2", name: "small", arguments: {} },
  ].map((call) => ({
    call,
    handle: outside.start(call, { signal: new AbortController().signal }),
  }));
  const own = new MockExecutor({ small: "mine" });
  const { input, store, sink } = await phaseInput({
    calls: calls("small"),
    joined,
    executor: own,
    policyFor: policies({ big: { sizeThreshold: SizeThreshold.parse("1KB") } }),
  });
  const output = await toPromise(createActor(phaseMachine, { input }).start());
  assert.equal(outside.started.length, 2, "started once, by their own client");
  assert.deepEqual(own.started.map(({ id }) => id), ["c0"]);
  assert.deepEqual(responsesOf(store.durableEvents("c")).map(({ id }) => id), ["c0", "x1", "x2"]);
  assert.deepEqual(sink.lines, ["big: sent 1.0 KB of 2.9 KB to the assistant (size_threshold)"]);
  const recordedBig = output.recorded[1]?.content;
  assert.deepEqual(outside.releases.map(({ call, delivery }) => [call.id, delivery]), [
    ["x1", { kind: "delivered", response: { id: "x1", content: recordedBig, isError: false } }],
    ["x2", { kind: "delivered", response: { id: "x2", content: "s", isError: false } }],
  ]);
});

Deno.test("a phase whose commit fails reports no notice as sent and releases every call with a failure", async () => {
  const executor = new MockExecutor({ big: "b".repeat(400_000) });
  const { input, store, sink } = await phaseInput({ calls: calls("big"), executor });
  store.failFlush = true;
  const output = await toPromise(createActor(phaseMachine, { input }).start());
  assert.equal(output.status, "failed");
  assert.equal(output.error?.code, "not_recorded");
  assert.deepEqual(output.notices, []);
  assert.deepEqual(sink.lines, [], "nothing was sent to the assistant");
  assert.deepEqual(executor.releases.map(({ ack }) => ack.kind), ["fail"]);
});

function record(
  index: number,
  review: CallRecord["review"],
  link?: ExecutionLink,
): CallRecord {
  const id = review?.response.id ?? `c${index}`;
  return {
    index,
    call: { id, name: "t", arguments: {} },
    route: link === undefined ? "answered" : "unattended",
    policy: undefined,
    link,
    review,
  };
}

Deno.test("commit merges in call order, records, flushes once, reports notices once durable and releases only calls with a link", async () => {
  const store = new MemoryStreamStore();
  const stream = await store.open("c");
  const executor = new MockExecutor({ t: (call) => call.id === "c0" ? "as is" : "raw" });
  const link = async (id: string) => {
    const made = new ExecutionLink(id, { executor });
    await made.start({ id, name: "t", arguments: {} });
    return made;
  };
  const flushesAtNotice: number[] = [];
  const sink = new CollectingNoticeSink();
  const states: string[] = [];
  const big = "x".repeat(3 * 1024 * 1024);
  const actor = createActor(commitMachine, {
    input: {
      records: [
        record(
          2,
          replacedReview("t", { id: "c2", content: "edited", isError: false }),
          await link("c2"),
        ),
        record(
          0,
          acceptedReview("t", { id: "c0", content: "as is", isError: false }),
          await link("c0"),
        ),
        record(1, replacedReview("t", { id: "c1", content: big, isError: true })),
      ],
      notices: [
        { tool: "t", callId: "c2", originalBytes: 9, capBytes: 6, cause: "size_threshold" },
      ],
      stream,
      noticeSink: {
        notice: (fact) => {
          flushesAtNotice.push(store.flushCount);
          sink.notice(fact);
        },
      },
    },
    inspect: topStates(states),
  });
  const output = await toPromise(actor.start());

  assert.equal(output.status, "done");
  assert.deepEqual(output.recorded.map(({ id }) => id), ["c0", "c1", "c2"]);
  assert.deepEqual(responsesOf(store.durableEvents("c")).map(({ id }) => id), ["c0", "c1", "c2"]);
  assert.equal(store.flushCount, 1);
  assert.deepEqual(sink.lines, [
    "t: sent 6 B of 9 B to the assistant (size_threshold)",
    "t: sent 1.9 MB of 3.0 MB to the assistant (batch ceiling)",
  ]);
  assert.deepEqual(flushesAtNotice, [1, 1], "reported only once the batch was flushed");
  assert.deepEqual(executor.releases.map(({ call, ack }) => [call.id, ack]), [
    ["c0", { kind: "deliver" }],
    ["c2", { kind: "replace", content: "edited", isError: false }],
  ]);
  assert.deepEqual(output.deliveries.map(({ callId }) => callId), ["c0", "c2"]);
  assert.deepEqual(states, [
    "merging",
    "spendingBudget",
    "recording",
    "flushing",
    "releasing",
    "done",
  ]);
});
