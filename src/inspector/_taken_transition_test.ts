import assert from "node:assert/strict";
import { phaseMachine } from "../machines/phase_machine.ts";
import { toolCallMachine } from "../machines/tool_call_machine.ts";
import { takenTransition } from "./_taken_transition.ts";

Deno.test("takenTransition() names the eventless transition and its guard that ended a phase", () => {
  assert.deepEqual(
    takenTransition(phaseMachine, ["committing"], "xstate.done.actor.commit", ["released"]),
    { event: "xstate.done.actor.commit", always: true, guard: "committedAndReleased" },
  );
});

Deno.test("takenTransition() names the guard of an evented transition out of a substate", () => {
  assert.deepEqual(
    takenTransition(
      toolCallMachine,
      ["execute", "running"],
      "xstate.done.actor.runCall",
      ["resultPrompt"],
    ),
    { event: "xstate.done.actor.runCall", guard: "wasParked" },
  );
  assert.equal(takenTransition(phaseMachine, ["committing"], "nothing", ["executing"]), undefined);
});
