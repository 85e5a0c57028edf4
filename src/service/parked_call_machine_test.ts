/**
 * The `parkedCall` chart and the parking lot agree: every step the chart
 * draws is taken by the service's own code paths (each driven here through
 * the `ExecutionService`, its state read before and after), and a step the
 * chart does not draw throws.
 */

import assert from "node:assert/strict";
import { toDirectedGraph } from "xstate/graph";
import { FakeToolSource, text, untilAborted } from "../testing/fake_tool_source.ts";
import { CALL_ID_META_KEY, ExecutionService } from "./execution_service.ts";
import {
  assertParkedCallStep,
  parkedCallMachine,
  parkedCallTransition,
} from "./parked_call_machine.ts";
import type { CallToolResult } from "./sdk.ts";

/** A service whose `gate` waits for `open()`, `hang` for its cancellation; `clock` is its clock. */
async function fixture(clock: { now(): number } = Date) {
  const gate = Promise.withResolvers<void>();
  const source = new FakeToolSource("fake", {
    gate: async () => {
      await gate.promise;
      return text("opened");
    },
    hang: (_args, signal) => untilAborted(signal),
  });
  const service = new ExecutionService({ sources: [source], barrierFor: () => "record", clock });
  await service.start();
  const call = (tool: string, id = "c1") => {
    let settled: CallToolResult | Error | undefined;
    const result = service.callTool(
      {
        method: "tools/call",
        params: { name: tool, arguments: {}, _meta: { [CALL_ID_META_KEY]: id } },
      },
      { signal: new AbortController().signal },
    ).then(
      (value) => settled = value,
      (error: Error) => settled = error,
    );
    return { result, settled: () => settled };
  };
  return {
    service,
    source,
    call,
    open: () => gate.resolve(),
    async [Symbol.asyncDispose]() {
      gate.resolve();
      await service.close();
    },
  };
}

type Step = `${string} --${string}--> ${string}`;

/** Each step of the chart, taken through the service, its call's state seen on both sides. */
const SCENARIOS: Readonly<Record<Step, () => Promise<void>>> = {
  "running --park--> parked": async () => {
    await using f = await fixture();
    const { result } = f.call("gate");
    await f.source.arrived.reached(1);
    assert.equal(f.service.callState("c1"), "running");
    f.open();
    await f.service.waitParked("c1");
    assert.equal(f.service.callState("c1"), "parked");
    f.service.acknowledge("c1", { kind: "deliver" });
    await result;
  },
  "running --cancel--> running": async () => {
    await using f = await fixture();
    const { result } = f.call("hang");
    await f.source.arrived.reached(1);
    assert.equal(f.service.cancel("c1", "Ctrl-C"), true);
    assert.equal(f.service.callState("c1"), "running", "it parks once its source gives up");
    const parked = await f.service.waitParked("c1");
    assert.deepEqual(parked.outcome, { kind: "cancelled", reason: "Ctrl-C" });
    f.service.acknowledge("c1", { kind: "fail", message: "cancelled" });
    await result;
  },
  "running --fault--> released": async () => {
    // A clock that breaks after the call arrived: a fault of the service's own.
    let reads = 0;
    await using f = await fixture({
      now: () => {
        if (++reads === 2) throw new Error("the clock broke");
        return 0;
      },
    });
    const { result, settled } = f.call("gate");
    await f.source.arrived.reached(1);
    assert.equal(f.service.callState("c1"), "running");
    f.open();
    await result;
    assert.match(String(settled()), /the clock broke/);
    assert.equal(f.service.callState("c1"), undefined, "nothing of it stays in the lot");
  },
  "parked --acknowledge--> acknowledged": async () => {
    await using f = await fixture();
    f.open();
    const { result, settled } = f.call("gate");
    await f.service.waitParked("c1");
    f.service.acknowledge("c1", { kind: "deliver" });
    assert.equal(f.service.callState("c1"), "acknowledged");
    assert.equal(settled(), undefined, "its caller waits for its delivery slice");
    assert.equal(f.service.cancel("c1"), false, "nothing left to cancel");
    await result;
  },
  "acknowledged --deliver--> released": async () => {
    await using f = await fixture();
    f.open();
    const { result, settled } = f.call("gate");
    await f.service.waitParked("c1");
    f.service.acknowledge("c1", { kind: "deliver" });
    await result;
    assert.deepEqual(settled(), { content: [{ type: "text", text: "opened" }], isError: false });
    assert.equal(f.service.callState("c1"), undefined);
    // Released, the id is free again.
    const again = f.call("gate");
    await f.service.waitParked("c1");
    f.service.acknowledge("c1", { kind: "deliver" });
    await again.result;
  },
};

/** The chart's steps, read from the machine definition by `xstate/graph`. */
function chartSteps(): Step[] {
  const steps: Step[] = [];
  const walk = (node: ReturnType<typeof toDirectedGraph>) => {
    for (const edge of node.edges) {
      steps.push(`${edge.source.key} --${edge.label.text}--> ${edge.target.key}`);
    }
    node.children.forEach(walk);
  };
  walk(toDirectedGraph(parkedCallMachine));
  return steps.sort();
}

Deno.test("every step of the parkedCall chart is one the service takes, and there are no others", () => {
  assert.deepEqual(chartSteps(), Object.keys(SCENARIOS).sort());
  const states = Object.keys(parkedCallMachine.root.states).sort();
  assert.deepEqual(states, ["acknowledged", "parked", "released", "running"]);
});

for (const [step, scenario] of Object.entries(SCENARIOS)) {
  Deno.test(`the service takes the parkedCall step ${step}`, scenario);
}

Deno.test("a step the parkedCall chart does not draw throws", () => {
  assert.equal(parkedCallTransition("running", "deliver"), undefined);
  assert.equal(parkedCallTransition("parked", "cancel"), undefined);
  assert.throws(() => assertParkedCallStep("running", "deliver", "released"), {
    name: "TypeError",
    message:
      "a parked call cannot go from running to released on deliver: the parkedCall chart has no such step",
  });
  assert.throws(() => assertParkedCallStep("parked", "acknowledge", "released"), TypeError);
  assert.doesNotThrow(() => assertParkedCallStep("parked", "acknowledge", "acknowledged"));
});
