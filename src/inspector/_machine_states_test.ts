import assert from "node:assert/strict";
import { setup } from "xstate";
import { phaseMachine } from "../machines/phase_machine.ts";
import { toolCallMachine } from "../machines/tool_call_machine.ts";
import { turnMachine } from "../machines/turn_machine.ts";
import { finalState, initialState, stateEntering, stateInvoking } from "./_machine_states.ts";

Deno.test("the toolCall route's states are found by what they do, as docs/architecture.md names them", () => {
  assert.deepEqual(
    [
      initialState(toolCallMachine),
      stateEntering(toolCallMachine, "writeSlot"),
      stateInvoking(toolCallMachine, "awaitRelease"),
      finalState(toolCallMachine),
    ],
    ["execute", "reviewSlot", "barrierAcknowledge", "released"],
  );
  assert.equal(stateInvoking(turnMachine, "phase"), "toolPhase");
  assert.equal(stateInvoking(phaseMachine, "commit"), "committing");
});

Deno.test("a lookup that finds no state, or more than one, throws naming the machine", () => {
  const machine = setup({ actors: {}, actions: { hello: () => {} } }).createMachine({
    id: "twoEnds",
    initial: "a",
    states: { a: { entry: "hello" }, b: { entry: { type: "hello" } }, c: { type: "final" } },
  });
  assert.equal(finalState(machine), "c");
  assert.throws(
    () => stateEntering(machine, "hello"),
    { message: "twoEnds has 2 top-level states that run hello on entry, not one" },
  );
  assert.throws(
    () => stateInvoking(machine, "work"),
    { message: "twoEnds has 0 top-level states that invoke work, not one" },
  );
});
