import assert from "node:assert/strict";
import { createActor, type InspectionEvent, setup } from "xstate";
import { fromPureStep } from "./from_pure_step.ts";

/** A machine invoking `step` on 21 from `working`, to `done` or `failed`. */
function machineOf(step: (n: number) => number) {
  return setup({
    types: { context: {} as { result: number | undefined; error: unknown } },
    actors: { step: fromPureStep(step) },
  }).createMachine({
    initial: "working",
    context: { result: undefined, error: undefined },
    states: {
      working: {
        invoke: {
          id: "step",
          src: "step",
          input: 21,
          onDone: {
            target: "done",
            actions: ({ context, event }) => context.result = event.output,
          },
          onError: {
            target: "failed",
            actions: ({ context, event }) => context.error = event.error,
          },
        },
      },
      done: { type: "final" },
      failed: { type: "final" },
    },
  });
}

Deno.test("fromPureStep settles when invoked: the parent sees its done event before start() returns", () => {
  const events: string[] = [];
  const actor = createActor(machineOf((n) => 2 * n), {
    inspect: (event: InspectionEvent) => {
      if (event.type === "@xstate.event") events.push(event.event.type);
    },
  }).start();
  const snapshot = actor.getSnapshot();
  assert.equal(snapshot.value, "done");
  assert.equal(snapshot.context.result, 42);
  // The done event is an event like any invoked actor's: the inspector sees it.
  assert.ok(events.includes("xstate.done.actor.step"), events.join(", "));
});

Deno.test("fromPureStep turns what the step throws into the invoke's onError, at once", () => {
  const fault = new Error("broken step");
  const actor = createActor(machineOf(() => {
    throw fault;
  })).start();
  const snapshot = actor.getSnapshot();
  assert.equal(snapshot.value, "failed");
  assert.equal(snapshot.context.error, fault);
});
