import assert from "node:assert/strict";
import fc from "fast-check";
import { withTestSeed } from "../testing/seed.ts";
import { ClientCall } from "./_client_call.ts";
import {
  arrived,
  hasOpenPhase,
  isEmpty,
  left,
  NO_PHASES,
  type PhaseEvent,
  type PhaseStep,
  ready,
  type ReadyCall,
  type SessionPhases,
  stepAside,
} from "./_session_phases.ts";

const readyCall = (seq: number): ReadyCall => ({
  call: { id: `c${seq}`, name: "t", arguments: {} },
  handle: ClientCall.unanswered(`c${seq}`),
  unavailable: true,
});

/** What a step said, as text: `opened`, `sealed`, `dropped`, `complete c1 c2`. */
function said(events: readonly PhaseEvent[]): string[] {
  return events.map((event) =>
    event.type === "phase.complete"
      ? ["complete", ...event.batch.map(({ call }) => call.id)].join(" ")
      : event.type.slice("phase.".length)
  );
}

/** Runs steps in order, collecting what each said. */
function run(...steps: ((phases: SessionPhases) => PhaseStep)[]) {
  let phases = NO_PHASES;
  const log: string[][] = [];
  for (const step of steps) {
    const next = step(phases);
    phases = next.phases;
    log.push(said(next.events));
  }
  return { phases, log };
}

Deno.test("a phase takes arrivals until one of its calls is ready, and completes when none runs", () => {
  const { phases, log } = run(
    (p) => arrived(p, 1),
    (p) => arrived(p, 2),
    (p) => ready(p, 2, readyCall(2)),
    (p) => arrived(p, 3),
    (p) => ready(p, 3, readyCall(3)),
    (p) => ready(p, 1, readyCall(1)),
  );
  assert.deepEqual(log, [
    ["opened"],
    [],
    ["sealed"],
    ["opened"],
    ["sealed", "complete c3"],
    ["complete c1 c2"],
  ], "sealed by its first ready call; the later phase completes first; each in arrival order");
  assert.equal(isEmpty(phases), true);
});

Deno.test("a phase whose calls all left without parking has nothing to commit and goes", () => {
  assert.deepEqual(
    run((p) => arrived(p, 1), (p) => arrived(p, 2), (p) => left(p, 1), (p) => left(p, 2)).log,
    [["opened"], [], [], ["sealed", "dropped"]],
  );
  assert.deepEqual(
    run(
      (p) => arrived(p, 1),
      (p) => arrived(p, 2),
      (p) => left(p, 2),
      (p) => ready(p, 1, readyCall(1)),
    ).log,
    [["opened"], [], [], ["sealed", "complete c1"]],
    "a call that left is not waited for",
  );
});

Deno.test("whatever the interleaving, every ready call is committed once, by the sealing rule, in arrival order", async () => {
  type Step = { readonly kind: "arrive" | "ready" | "leave"; readonly pick: number };
  const steps = fc.array(
    fc.record({
      kind: fc.constantFrom<Step["kind"]>("arrive", "arrive", "ready", "leave"),
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
        const said: string[] = [];
        const expected: string[] = [];
        let seq = 0;
        let overlapped = false;
        const take = ({ phases: next, events }: PhaseStep) => {
          phases = next;
          for (const event of events) {
            said.push(
              event.type === "phase.complete"
                ? `complete ${event.batch.map(({ call }) => call.id).join(" ")}`
                : event.type,
            );
          }
        };
        const end = (call: number, isReady: boolean) => {
          running.splice(running.indexOf(call), 1);
          const phase = model.find(({ members }) => members.includes(call));
          if (phase === undefined) throw new Error("a call without a phase in the model");
          phase.ended.add(call);
          const allEnded = phase.members.every((member) => phase.ended.has(member));
          if (phase.open && (isReady || allEnded)) {
            phase.open = false;
            expected.push("phase.sealed");
          }
          if (isReady) phase.ready.push(call);
          take(isReady ? ready(phases, call, readyCall(call)) : left(phases, call));
          if (allEnded) {
            model.splice(model.indexOf(phase), 1);
            if (phase.ready.length === 0) {
              reached.dropped += 1;
              expected.push("phase.dropped");
            } else {
              const batch = phase.ready.toSorted((a, b) => a - b).map((n) => `c${n}`);
              expected.push(`complete ${batch.join(" ")}`);
            }
          }
        };
        for (const { kind, pick } of script) {
          if (kind === "arrive" || running.length === 0) {
            seq += 1;
            const open = model.at(-1);
            if (open?.open === true) {
              open.members.push(seq);
            } else {
              model.push({ members: [seq], open: true, ended: new Set(), ready: [] });
              expected.push("phase.opened");
            }
            if (model.length > 1) overlapped = true;
            running.push(seq);
            take(arrived(phases, seq));
          } else {
            end(running[pick % running.length] as number, kind === "ready");
          }
          assert.equal(hasOpenPhase(phases), model.at(-1)?.open === true);
        }
        while (running.length > 0) end(running[0] as number, true);
        assert.deepEqual(said, expected);
        assert.ok(isEmpty(phases), "nothing left in flight");
        if (expected.some((event) => event.split(" ").length > 2)) reached.wide += 1;
        if (overlapped) reached.overlapping += 1;
      }),
      { seed, numRuns: 300 },
    )
  );
  assert.ok(reached.wide >= 150, `runs with a phase of several calls: ${reached.wide}`);
  assert.ok(reached.dropped >= 150, `phases whose calls all left: ${reached.dropped}`);
  assert.ok(
    reached.overlapping >= 100,
    `runs with arrivals while an earlier phase ran: ${reached.overlapping}`,
  );
});

Deno.test("a call that steps aside leaves its phase for a sealed one of its own; the open phase stays last", () => {
  const { phases, log } = run(
    (p) => arrived(p, 1),
    (p) => arrived(p, 2),
    (p) => stepAside(p, 1, -1),
    (p) => arrived(p, 3),
    (p) => ready(p, 2, readyCall(2)),
    (p) => ready(p, 3, readyCall(3)),
    (p) => arrived(p, 4),
    (p) => ready(p, -1, readyCall(1)),
    (p) => ready(p, 4, readyCall(4)),
  );
  assert.deepEqual(log, [
    ["opened"],
    [],
    ["aside"],
    [],
    ["sealed"],
    ["complete c2 c3"],
    ["opened"],
    ["complete c1"],
    ["sealed", "complete c4"],
  ]);
  assert.ok(isEmpty(phases));
});

Deno.test("the last call of an open phase stepping aside seals it, dropped", () => {
  const { phases, log } = run(
    (p) => arrived(p, 1),
    (p) => stepAside(p, 1, -1),
    (p) => arrived(p, 2),
    (p) => ready(p, -1, readyCall(1)),
  );
  assert.deepEqual(log, [["opened"], ["aside", "sealed", "dropped"], ["opened"], ["complete c1"]]);
  assert.ok(hasOpenPhase(phases));
});
