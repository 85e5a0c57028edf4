import assert from "node:assert/strict";
import fc from "fast-check";
import { withTestSeed } from "../testing/seed.ts";
import { ClientCall } from "./_client_call.ts";
import {
  arrived,
  hasOpenPhase,
  isEmpty,
  left,
  nextBatch,
  NO_PHASES,
  ready,
  type ReadyCall,
  type SessionPhases,
} from "./_session_phases.ts";

const readyCall = (seq: number): ReadyCall => ({
  call: { id: `c${seq}`, name: "t", arguments: {} },
  handle: ClientCall.unanswered(`c${seq}`),
  unavailable: true,
});

const batchOf = (phases: SessionPhases) => nextBatch(phases)?.batch.map(({ call }) => call.id);

Deno.test("a phase takes arrivals until one of its calls is ready, and completes when none runs", () => {
  let phases = arrived(arrived(NO_PHASES, 1), 2);
  assert.equal(hasOpenPhase(phases), true);
  phases = ready(phases, 2, readyCall(2));
  assert.equal(hasOpenPhase(phases), false, "sealed by its first ready call");
  phases = arrived(phases, 3);
  assert.equal(phases.gathering.length, 2, "the next arrival opens the next phase");
  phases = ready(phases, 3, readyCall(3));
  assert.equal(batchOf(phases)?.join(), "c3", "the later phase completes first");
  phases = ready(phases, 1, readyCall(1));
  const first = nextBatch(phases);
  assert.deepEqual(first?.batch.map(({ call }) => call.id), ["c3"]);
  assert.deepEqual(nextBatch(first?.phases ?? NO_PHASES)?.batch.map(({ call }) => call.id), [
    "c1",
    "c2",
  ], "recorded in arrival order");
});

Deno.test("a phase whose calls all left without parking has nothing to commit and goes", () => {
  let phases = arrived(arrived(NO_PHASES, 1), 2);
  phases = left(left(phases, 1), 2);
  assert.equal(isEmpty(phases), true);
  phases = arrived(NO_PHASES, 1);
  phases = ready(left(arrived(phases, 2), 2), 1, readyCall(1));
  assert.deepEqual(batchOf(phases), ["c1"], "a call that left is not waited for");
});

Deno.test("whatever the interleaving, every ready call is committed once, by the sealing rule, in arrival order", async () => {
  type Step = { readonly kind: "arrive" | "ready" | "leave" | "commit"; readonly pick: number };
  const steps = fc.array(
    fc.record({
      kind: fc.constantFrom<Step["kind"]>("arrive", "arrive", "ready", "leave", "commit"),
      pick: fc.nat(),
    }),
    { minLength: 8, maxLength: 60, size: "max" },
  );
  const reached = { wide: 0, dropped: 0, overlapping: 0 };
  await withTestSeed((seed) =>
    fc.assert(
      fc.property(steps, (script) => {
        let phases = NO_PHASES;
        // The reference: phases as lists of arrival numbers, by the rule itself.
        const model: { members: number[]; open: boolean; ended: Set<number>; ready: number[] }[] =
          [];
        const running: number[] = [];
        const committed: string[][] = [];
        const expected: string[][] = [];
        let seq = 0;
        let overlapped = false;
        const commitAll = () => {
          for (let next = nextBatch(phases); next !== undefined; next = nextBatch(phases)) {
            committed.push(next.batch.map(({ call }) => call.id));
            phases = next.phases;
          }
        };
        const end = (call: number, isReady: boolean) => {
          running.splice(running.indexOf(call), 1);
          const phase = model.find(({ members }) => members.includes(call));
          if (phase === undefined) throw new Error("a call without a phase in the model");
          phase.ended.add(call);
          if (isReady) {
            phase.open = false;
            phase.ready.push(call);
            phases = ready(phases, call, readyCall(call));
          } else {
            phases = left(phases, call);
          }
          if (phase.members.every((member) => phase.ended.has(member))) {
            model.splice(model.indexOf(phase), 1);
            if (phase.ready.length === 0) reached.dropped += 1;
            else expected.push(phase.ready.toSorted((a, b) => a - b).map((n) => `c${n}`));
          }
        };
        for (const { kind, pick } of script) {
          if (kind === "commit") {
            commitAll();
          } else if (kind === "arrive" || running.length === 0) {
            seq += 1;
            const open = model.at(-1);
            if (open?.open === true) open.members.push(seq);
            else model.push({ members: [seq], open: true, ended: new Set(), ready: [] });
            if (model.length > 1) overlapped = true;
            running.push(seq);
            phases = arrived(phases, seq);
          } else {
            end(running[pick % running.length] as number, kind === "ready");
          }
          assert.equal(hasOpenPhase(phases), model.at(-1)?.open === true);
        }
        while (running.length > 0) end(running[0] as number, true);
        commitAll();
        assert.deepEqual(committed, expected);
        assert.ok(isEmpty(phases), "nothing left in flight");
        if (committed.some((batch) => batch.length > 1)) reached.wide += 1;
        if (overlapped) reached.overlapping += 1;
      }),
      { seed, numRuns: 300 },
    )
  );
  assert.ok(reached.wide >= 150, `phases of several calls: ${reached.wide}`);
  assert.ok(reached.dropped >= 150, `phases whose calls all left: ${reached.dropped}`);
  assert.ok(
    reached.overlapping >= 100,
    `arrivals while an earlier phase ran: ${reached.overlapping}`,
  );
});
