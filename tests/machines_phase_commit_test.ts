/**
 * The `phase` and `commit` machines on their own: the phase end caps every
 * slot once with its own tool's threshold, in call-index order whatever the
 * finishing order; the commit merges, records, and acknowledges exactly the
 * parked calls, the service's own result only for accepted reviews.
 */

import assert from "node:assert/strict";
import { createActor, fromCallback, type InspectionEvent, toPromise, waitFor } from "xstate";
import { commitMachine } from "../src/machines/commit_machine.ts";
import type { IndexedAcknowledgement } from "../src/machines/indexed_call.ts";
import { MockExecutor } from "../src/testing/mock_executor.ts";
import type { ExecutionResult } from "../src/machines/cap_slots.ts";
import { phaseMachine, type PhaseReleaseEvent } from "../src/machines/phase_machine.ts";
import { acceptedReview, replacedReview } from "../src/review/review.ts";
import { SizeThreshold } from "../src/size/size_threshold.ts";
import { MemoryStreamStore } from "../src/stream/memory_stream_store.ts";
import { CollectingNoticeSink } from "../src/testing/collecting_notice_sink.ts";
import { scriptedPrompter } from "../src/testing/scripted_prompter.ts";
import { policies, responsesOf } from "./machines_fixtures.ts";

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

Deno.test("phase caps every slot with its tool's threshold, in call-index order", async () => {
  const executor = new MockExecutor({
    slow: { result: "s".repeat(5000), delayMs: 3 },
    fast: "fast result",
    mid: { result: "m".repeat(5000), delayMs: 1 },
  });
  const states: string[] = [];
  const actor = createActor(phaseMachine, {
    input: {
      calls: [
        { index: 1, call: { id: "c1", name: "slow", arguments: {} } },
        { index: 2, call: { id: "c2", name: "fast", arguments: {} } },
        { index: 4, call: { id: "c4", name: "mid", arguments: {} } },
      ],
      policyFor: policies({ slow: { sizeThreshold: SizeThreshold.parse("1KB") } }),
      executor,
      prompter: scriptedPrompter(),
    },
    inspect: topStates(states),
  });
  let ended: ExecutionResult | undefined;
  actor.on("phase.ended", (event) => ended = event.result);
  const done = toPromise(actor);
  actor.start();
  await waitFor(actor, (snapshot) => snapshot.matches("awaitingRelease"));
  assert.ok(ended !== undefined);
  assert.deepEqual(ended.slots.map(({ index }) => index), [1, 2, 4]);
  const [slow, fast, mid] = ended.slots;
  assert.equal(slow?.review.status, "replaced");
  assert.ok(slow?.review.response.content.endsWith("\n... [truncated, 4.8 KB → 1.0 KB]"));
  assert.equal(fast?.review.response.content, "fast result");
  assert.equal(mid?.review.response.content, "m".repeat(5000), "256KB default threshold: whole");
  assert.deepEqual(ended.notices, [
    { tool: "slow", callId: "c1", originalBytes: 5000, capBytes: 1024, cause: "size_threshold" },
  ]);

  const acks: IndexedAcknowledgement[] = ended.slots.map(({ index, review }) => ({
    index,
    callId: review.response.id,
    ack: review.status === "accepted"
      ? { kind: "deliver" }
      : { kind: "replace", content: review.response.content, isError: false },
    recorded: review.response,
  }));
  // The acknowledgement of c4 is missing: that call is released with a failure, not left hanging.
  actor.send({ type: "release", acks: acks.slice(0, 2) } satisfies PhaseReleaseEvent);
  const output = await done;
  assert.deepEqual(output.deliveries.map(({ callId, delivery }) => [callId, delivery.kind]), [
    ["c1", "delivered"],
    ["c2", "delivered"],
    ["c4", "failed"],
  ]);
  assert.deepEqual(executor.releases.at(-1)?.ack, {
    kind: "fail",
    message: "the result of call c4 was not acknowledged",
  });
  assert.deepEqual(states, ["executing", "capping", "awaitingRelease", "releasing", "released"]);
});

Deno.test("phase with no calls ends its execution at once", async () => {
  const actor = createActor(phaseMachine, {
    input: {
      calls: [],
      policyFor: policies(),
      executor: new MockExecutor({}),
      prompter: scriptedPrompter(),
    },
  });
  const done = toPromise(actor);
  actor.start();
  await waitFor(actor, (snapshot) => snapshot.matches("awaitingRelease"));
  actor.send({ type: "release", acks: [] });
  assert.deepEqual(await done, { deliveries: [] });
});

Deno.test("commit merges in call order, records, flushes once and acknowledges only parked calls", async () => {
  const store = new MemoryStreamStore();
  const stream = await store.open("c");
  const received: PhaseReleaseEvent[] = [];
  // A stand-in phase: answers every release with one delivery per acknowledgement.
  const phase = createActor(fromCallback<PhaseReleaseEvent>(({ receive }) => {
    receive((event) => {
      received.push(event);
      event.replyTo?.send({
        type: "phase.released",
        deliveries: event.acks.map(({ index, callId, recorded }) => ({
          index,
          callId,
          delivery: recorded === undefined
            ? { kind: "failed" as const, message: "nothing" }
            : { kind: "delivered" as const, response: recorded },
        })),
      });
    });
  }));
  phase.start();
  const states: string[] = [];
  const actor = createActor(commitMachine, {
    input: {
      executed: [
        { index: 2, review: replacedReview("t", { id: "c2", content: "edited", isError: false }) },
        { index: 0, review: acceptedReview("t", { id: "c0", content: "as is", isError: false }) },
      ],
      preResolved: [
        {
          index: 1,
          review: replacedReview("gone", { id: "c1", content: "unavailable", isError: true }),
        },
      ],
      stream,
      noticeSink: new CollectingNoticeSink(),
      phase,
    },
    inspect: topStates(states),
  });
  const done = toPromise(actor);
  actor.start();
  const output = await done;
  phase.stop();

  assert.equal(output.status, "done");
  assert.deepEqual(output.recorded.map(({ id }) => id), ["c0", "c1", "c2"]);
  assert.deepEqual(responsesOf(store.durableEvents("c")).map(({ id }) => id), ["c0", "c1", "c2"]);
  assert.equal(store.flushCount, 1);
  assert.equal(received.length, 1);
  assert.deepEqual(received[0]?.acks.map(({ callId, ack }) => [callId, ack]), [
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

Deno.test("phase runs calls across several call groups and keeps call-index order", async () => {
  const n = 100; // more than one group of MIN_CALL_GROUP_SIZE
  const executor = new MockExecutor({
    // Later calls finish first, so slots arrive out of order.
    echo: (call) =>
      new Promise((resolve) =>
        setTimeout(() => resolve(call.id), 7 - (Number(call.id.slice(2)) % 7))
      ),
    skipped: "never runs",
  });
  const calls = Array.from({ length: n }, (_, i) => ({
    index: i * 2, // indices with gaps, as when pre-resolved calls are left out
    call: { id: `c_${i}`, name: i % 10 === 3 ? "skipped" : "echo", arguments: {} },
  }));
  const actor = createActor(phaseMachine, {
    input: {
      calls,
      policyFor: policies({ skipped: { run: "skip" } }),
      executor,
      prompter: scriptedPrompter(),
    },
  });
  let ended: ExecutionResult | undefined;
  actor.on("phase.ended", (event) => ended = event.result);
  const done = toPromise(actor);
  actor.start();
  await waitFor(actor, (snapshot) => snapshot.matches("awaitingRelease"));
  assert.ok(ended !== undefined);
  assert.deepEqual(ended.slots.map(({ index }) => index), calls.map(({ index }) => index));
  ended.slots.forEach(({ review }, i) => {
    const expected = i % 10 === 3 ? "The user skipped this tool call." : `c_${i}`;
    assert.equal(review.response.content, expected);
  });
  assert.equal(executor.started.length, 90);
  actor.send({
    type: "release",
    acks: ended.slots.map(({ index, review }) => ({
      index,
      callId: review.response.id,
      ack: review.status === "accepted"
        ? { kind: "deliver" as const }
        : { kind: "replace" as const, content: review.response.content, isError: true },
      recorded: review.response,
    })),
  });
  const output = await done;
  assert.equal(output.deliveries.length, n);
  assert.ok(output.deliveries.every(({ delivery }) => delivery.kind === "delivered"));
  assert.deepEqual(output.deliveries.map(({ index }) => index), calls.map(({ index }) => index));
});
