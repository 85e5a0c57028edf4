import assert from "node:assert/strict";
import fc from "fast-check";
import { SpillwayError } from "../errors/spillway_error.ts";
import { withTestSeed } from "../testing/seed.ts";
import type { StreamEvent } from "./events.ts";
import { MemoryStreamStore } from "./memory_stream_store.ts";
import { providerView } from "./provider_view.ts";
import {
  INTERRUPTED_RESPONSE,
  INTERRUPTED_TURN_REASON,
  planTurnRepair,
  repairInterruptedTurn,
  turnRepairWarning,
} from "./repair_interrupted_turn.ts";

const AT = "2026-11-30T12:00:00.000Z";
const start = (n: number): StreamEvent => ({
  type: "turn_start",
  turn_id: `c1/${n}`,
  prompt: `prompt ${n}`,
  at: "2026-11-30T11:00:00Z",
});
const said = (n: number): StreamEvent => ({
  type: "chat_response",
  turn_id: `c1/${n}`,
  cycle: 0,
  text: "calling",
  at: "2026-11-30T11:00:01Z",
});
const request = (id: string): StreamEvent => ({
  type: "tool_call_request",
  id,
  name: "ls",
  arguments: {},
});
const response = (id: string): StreamEvent => ({
  type: "tool_call_response",
  id,
  content: `result of ${id}`,
  is_error: false,
});
const end = (n: number): StreamEvent => ({
  type: "turn_end",
  turn_id: `c1/${n}`,
  status: "finished",
  at: "2026-11-30T11:00:02Z",
});
const interrupted = (id: string): StreamEvent => ({
  type: "tool_call_response",
  id,
  content: INTERRUPTED_RESPONSE,
  is_error: true,
});
const repairedEnd = (n: number): StreamEvent => ({
  type: "turn_end",
  turn_id: `c1/${n}`,
  status: "failed",
  reason: INTERRUPTED_TURN_REASON,
  at: AT,
});

Deno.test("planTurnRepair() leaves a whole conversation alone", () => {
  assert.equal(planTurnRepair([], AT), undefined);
  assert.equal(
    planTurnRepair(
      [start(1), said(1), request("a"), response("a"), end(1), start(2), end(2)],
      AT,
    ),
    undefined,
  );
  // Events without any turn_start are not a turn to repair.
  assert.equal(planTurnRepair([request("a")], AT), undefined);
});

Deno.test("planTurnRepair() answers the unanswered calls of an unended last turn, then ends it", () => {
  const events = [start(1), said(1), request("a"), request("b"), request("c"), response("b")];
  assert.deepEqual(planTurnRepair(events, AT), {
    events: [interrupted("a"), interrupted("c"), repairedEnd(1)],
    calls: 2,
    unended: true,
  });
});

Deno.test("planTurnRepair() ends an unended turn without calls", () => {
  assert.deepEqual(planTurnRepair([start(1), end(1), start(2)], AT), {
    events: [repairedEnd(2)],
    calls: 0,
    unended: true,
  });
});

Deno.test("planTurnRepair() answers the calls of a turn that ended without their results (a failed commit)", () => {
  const failedEnd: StreamEvent = {
    type: "turn_end",
    turn_id: "c1/1",
    status: "failed",
    reason: "the results of this batch were not recorded: could not flush",
    at: AT,
  };
  assert.deepEqual(planTurnRepair([start(1), said(1), request("a"), failedEnd], AT), {
    events: [interrupted("a")],
    calls: 1,
    unended: false,
  });
});

Deno.test("planTurnRepair() counts a repeated call id once per request, and only in the last turn", () => {
  // call_1 was answered in turn 1; turn 2 reuses the id twice and has one answer.
  const events = [
    start(1),
    request("call_1"),
    response("call_1"),
    end(1),
    start(2),
    request("call_1"),
    request("call_1"),
    response("call_1"),
  ];
  assert.deepEqual(planTurnRepair(events, AT)?.events, [interrupted("call_1"), repairedEnd(2)]);
});

Deno.test("turnRepairWarning() says what was repaired, once per case", () => {
  const warn = (calls: number, unended: boolean) =>
    turnRepairWarning("20261130-120000-abcdef", { events: [], calls, unended });
  assert.deepEqual([warn(2, true), warn(1, true), warn(0, true), warn(3, false), warn(1, false)], [
    "conversation 20261130-120000-abcdef: its last turn was interrupted before it ended; recorded 2 unanswered calls as interrupted",
    "conversation 20261130-120000-abcdef: its last turn was interrupted before it ended; recorded 1 unanswered call as interrupted",
    "conversation 20261130-120000-abcdef: its last turn was interrupted before it ended; recorded its end",
    "conversation 20261130-120000-abcdef: its last turn ended with 3 unanswered calls; recorded them as interrupted",
    "conversation 20261130-120000-abcdef: its last turn ended with 1 unanswered call; recorded it as interrupted",
  ]);
});

Deno.test("repairInterruptedTurn() records the repair durably and warns once; the next open finds nothing", async () => {
  const store = new MemoryStreamStore();
  const stream = await store.open("c1");
  await stream.append([start(1), said(1), request("a")]);
  await stream.flush();

  const first = await repairInterruptedTurn(stream, { at: AT });
  const repaired = [start(1), said(1), request("a"), interrupted("a"), repairedEnd(1)];
  assert.deepEqual(first, {
    events: repaired,
    warnings: [
      "conversation c1: its last turn was interrupted before it ended; recorded 1 unanswered call as interrupted",
    ],
  });
  assert.deepEqual(store.durableEvents("c1"), repaired);
  assert.equal(store.flushCount, 2, "one flush for the repair");

  const again = await repairInterruptedTurn(await store.open("c1"), { at: AT });
  assert.deepEqual(again, { events: repaired, warnings: [] });
  assert.equal(store.flushCount, 2);
});

Deno.test("repairInterruptedTurn() that cannot flush fails with store_failed and leaves the turn as it was", async () => {
  const store = new MemoryStreamStore();
  const stream = await store.open("c1");
  await stream.append([start(1), request("a")]);
  await stream.flush();
  store.failFlush = true;
  await assert.rejects(
    repairInterruptedTurn(stream, { at: AT }),
    (error: unknown) => error instanceof SpillwayError && error.code === "store_failed",
  );
  assert.deepEqual((await stream.load()).events, [start(1), request("a")]);
});

/** A conversation of a few turns whose last one was cut off anywhere. */
const cutConversation = fc.record({
  turns: fc.array(
    fc.record({
      calls: fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 6 }),
      answered: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
      ended: fc.boolean(),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

Deno.test("planTurnRepair() properties: after the repair every call of the view is answered, and a second repair finds nothing", async () => {
  const runs = 300;
  const reached = { calls: 0, unended: 0, endedWithCalls: 0 };
  await withTestSeed((seed) => {
    fc.assert(
      fc.property(cutConversation, ({ turns }) => {
        // Earlier turns are whole (each was repaired when the next one opened it).
        const events: StreamEvent[] = [];
        turns.forEach((turn, t) => {
          const last = t === turns.length - 1;
          events.push(start(t + 1), said(t + 1));
          turn.calls.forEach((id) => events.push(request(id)));
          turn.calls.forEach((id, i) => {
            if (!last || turn.answered[i]) events.push(response(id));
          });
          if (!last || turn.ended) events.push(end(t + 1));
        });
        const repair = planTurnRepair(events, AT);
        if (repair === undefined) return;
        if (repair.calls > 0) reached.calls++;
        if (repair.unended) reached.unended++;
        if (!repair.unended && repair.calls > 0) reached.endedWithCalls++;
        const whole = [...events, ...repair.events];
        assert.equal(planTurnRepair(whole, AT), undefined, "a second repair found something");
        const view = providerView(whole);
        view.forEach((message, i) => {
          if (message.role !== "assistant") return;
          const answered = new Map<string, number>();
          for (const next of view.slice(i + 1)) {
            if (next.role !== "tool") break;
            answered.set(next.id, (answered.get(next.id) ?? 0) + 1);
          }
          for (const call of message.toolCalls) {
            const left = answered.get(call.id) ?? 0;
            assert.ok(left > 0, `call ${call.id} of message ${i} is unanswered`);
            answered.set(call.id, left - 1);
          }
        });
      }),
      { seed, numRuns: runs },
    );
  });
  console.log(
    `planTurnRepair property: ${runs} cases, ${reached.calls} repaired unanswered calls, ` +
      `${reached.unended} repaired a turn with no turn_end, ${reached.endedWithCalls} answered ` +
      `calls of a turn that had ended`,
  );
  // The generator must reach each kind of repair often.
  for (const [kind, count] of Object.entries(reached)) {
    assert.ok(count >= runs / 10, `only ${count} of ${runs} cases reached ${kind}`);
  }
});
