/**
 * Flush before release: when recording or flushing a batch fails, no call of
 * that batch is released with content, every caller is told its result was
 * not recorded, and the durable stream holds no response of that batch.
 */

import assert from "node:assert/strict";
import { createActor, toPromise } from "xstate";
import { commitMachine } from "../src/machines/commit_machine.ts";
import { MockExecutor } from "../src/testing/mock_executor.ts";
import { runTurn } from "../src/machines/run_turn.ts";
import { CollectingNoticeSink } from "../src/testing/collecting_notice_sink.ts";
import { acceptedReview } from "../src/review/review.ts";
import { MemoryStreamStore } from "../src/stream/memory_stream_store.ts";
import { answer, callsMessage, responsesOf, turnHarness } from "./machines_fixtures.ts";

/** A fault switch that fires on the `n`th call only (1-based). */
function onCall(n: number): () => boolean {
  let calls = 0;
  return () => ++calls === n;
}

Deno.test("a failed flush releases no call with content, and the conversation keeps no response of the batch", async () => {
  // Flush 1 makes the assistant's message durable; flush 2 is the commit's.
  const store = new MemoryStreamStore({ failFlush: onCall(2) });
  const executor = new MockExecutor({ a: "alpha", b: "x".repeat(300_000) });
  const h = await turnHarness({
    steps: [
      callsMessage("Two calls.", [["c1", "a"], ["c2", "b"], ["c3", "missing"]]),
      answer("never"),
    ],
    executor,
    tools: ["a", "b"],
    store,
  });

  const output = await runTurn(h.input);

  assert.equal(output.status, "failed");
  assert.equal(output.error?.code, "not_recorded");
  assert.equal(
    output.reason,
    "the results of this batch were not recorded: could not flush memory:conversation-1: injected flush failure",
  );
  assert.equal(h.provider.requests.length, 1, "no further cycle after a failed commit");
  // Every parked call is released, with a failure and never with content.
  assert.equal(executor.releases.length, 2);
  for (const release of executor.releases) {
    assert.deepEqual(release.ack, {
      kind: "fail",
      message: `the result of call ${release.call.id} was not recorded: ` +
        "could not flush memory:conversation-1: injected flush failure",
    });
    assert.equal(release.recorded, undefined);
    assert.equal(release.delivery.kind, "failed");
  }
  const durable = store.durableEvents("conversation-1");
  assert.deepEqual(responsesOf(durable), []);
  // The failed flush took the batch out; the stream went on and recorded the failed turn.
  assert.deepEqual(durable.map((event) => event.type), [
    "turn_start",
    "chat_request",
    "chat_response",
    "tool_call_request",
    "tool_call_request",
    "tool_call_request",
    "turn_end",
  ]);
  assert.deepEqual((await (await store.open("conversation-1")).load()).events, durable);
  assert.deepEqual(durable.at(-1), {
    type: "turn_end",
    turn_id: "turn-1",
    status: "failed",
    reason: output.reason,
    at: "2025-01-01T00:00:00.000Z",
  });
});

Deno.test("a failed append of the batch releases every parked call with a not-recorded failure", async () => {
  // Appends: 1 turn_start + chat_request, 2 the assistant's message, 3 the batch.
  const store = new MemoryStreamStore({ failAppend: onCall(3) });
  const executor = new MockExecutor({ a: "alpha" });
  const h = await turnHarness({
    steps: [callsMessage("One call.", [["c1", "a"]]), answer("never")],
    executor,
    tools: ["a"],
    store,
  });

  const output = await runTurn(h.input);

  assert.equal(output.status, "failed");
  assert.equal(output.error?.code, "not_recorded");
  assert.deepEqual(executor.releases.map((release) => release.delivery), [{
    kind: "failed",
    message: "the result of call c1 was not recorded: could not append to memory:conversation-1: " +
      "injected append failure",
  }]);
  const durable = store.durableEvents("conversation-1");
  assert.deepEqual(responsesOf(durable), []);
  // The stream stays usable: the failed turn is recorded.
  assert.deepEqual(durable.at(-1), {
    type: "turn_end",
    turn_id: "turn-1",
    status: "failed",
    reason:
      "the results of this batch were not recorded: could not append to memory:conversation-1: " +
      "injected append failure",
    at: "2025-01-01T00:00:00.000Z",
  });
});

Deno.test("commit ends failed with nothing recorded when the flush fails", async () => {
  const store = new MemoryStreamStore({ failFlush: true });
  const stream = await store.open("c");
  const review = acceptedReview("t", { id: "c1", content: "hello", isError: false });
  const actor = createActor(commitMachine, {
    input: {
      records: [{
        index: 0,
        call: { id: "c1", name: "t", arguments: {} },
        route: "answered",
        policy: undefined,
        link: undefined,
        review,
      }],
      notices: [],
      stream,
      noticeSink: new CollectingNoticeSink(),
    },
  });
  const done = toPromise(actor);
  actor.start();
  const output = await done;
  assert.equal(output.status, "failed");
  assert.deepEqual(output.recorded, []);
  assert.equal(output.error?.code, "not_recorded");
  assert.equal(actor.getSnapshot().value, "failed");
  assert.deepEqual(store.durableEvents("c"), []);
});
