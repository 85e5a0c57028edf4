import assert from "node:assert/strict";
import { type AnyActorLogic, createActor, type InspectionEvent, waitFor } from "xstate";
import type { Review } from "../review/review.ts";
import { SizeThreshold } from "../size/size_threshold.ts";
import { MockExecutor } from "../testing/mock_executor.ts";
import { SlotBoard } from "./slot_board.ts";
import {
  isUnattended,
  toolCallMachine,
  type ToolCallOutput,
  unattendedToolCallMachine,
} from "./tool_call_machine.ts";
import type { PolicyMode, ToolPolicy } from "./turn_dependencies.ts";

const CALL = { id: "call_1", name: "probe", arguments: {} };

function policy(result: PolicyMode = "unattended", run: PolicyMode = "unattended"): ToolPolicy {
  return { result, run, sizeThreshold: SizeThreshold.DEFAULT, cancellationResponse: "cancelled" };
}

const prompter = {
  ask: () => Promise.reject(new Error("nobody is asked")),
  edit: () => Promise.reject(new Error("nobody is asked")),
};

interface Run {
  readonly states: string[];
  readonly slotted: Review | undefined;
  readonly output: ToolCallOutput;
}

/**
 * Runs one call of `logic` to its end: waits for the barrier, releases the
 * slot's review the way the commit would (`release` sent `releases` times),
 * and records the top-level states it went through.
 */
async function run(
  logic: typeof toolCallMachine | typeof unattendedToolCallMachine,
  executor: MockExecutor,
  options: { policy?: ToolPolicy; releases?: number } = {},
): Promise<Run> {
  const states: string[] = [];
  const inspect = (event: InspectionEvent) => {
    if (event.type !== "@xstate.microstep" && event.type !== "@xstate.snapshot") return;
    if (event.actorRef.sessionId !== event.rootId) return;
    const value = (event.snapshot as { value?: unknown }).value;
    const top = typeof value === "string" ? value : Object.keys(value ?? {})[0];
    if (top !== undefined && states.at(-1) !== top) states.push(top);
  };
  const slots = new SlotBoard([0], () => {});
  const actor = createActor(logic as AnyActorLogic, {
    input: { index: 0, call: CALL, policy: options.policy ?? policy(), executor, prompter, slots },
    inspect,
  });
  actor.start();
  await waitFor(actor, (snapshot) => snapshot.matches("barrierAcknowledge"));
  const slotted = slots.reviews()[0]?.review;
  assert.ok(slotted !== undefined, "the slot is written before the barrier");
  const { id, content, isError } = slotted.response;
  for (let i = 0; i < (options.releases ?? 1); i++) {
    actor.send({
      type: "release",
      ack: slotted.status === "accepted"
        ? { kind: "deliver" }
        : { kind: "replace", content, isError },
      recorded: { id, content, isError },
    });
  }
  const done = await waitFor(actor, (snapshot) => snapshot.status === "done");
  return { states, slotted, output: done.output as ToolCallOutput };
}

Deno.test("the unattended toolCall passes the same states and ends with the same output", async () => {
  const complete = await run(toolCallMachine, new MockExecutor({ probe: "fine" }));
  const unattended = await run(unattendedToolCallMachine, new MockExecutor({ probe: "fine" }));
  assert.deepEqual(unattended.states, [
    "execute",
    "resultPrompt",
    "reviewSlot",
    "barrierAcknowledge",
    "released",
  ]);
  assert.deepEqual(unattended.states, complete.states);
  assert.deepEqual(unattended.slotted, complete.slotted);
  assert.deepEqual(unattended.output, complete.output);
  assert.equal(unattended.output.delivery.kind, "delivered");
});

Deno.test("the unattended toolCall withholds a result under result = skip", async () => {
  const executor = new MockExecutor({ probe: "secret" });
  const withheld = await run(unattendedToolCallMachine, executor, { policy: policy("skip") });
  const complete = await run(toolCallMachine, new MockExecutor({ probe: "secret" }), {
    policy: policy("skip"),
  });
  assert.equal(withheld.slotted?.status, "replaced");
  assert.deepEqual(withheld.slotted, complete.slotted);
  assert.equal(executor.releases[0]?.ack.kind, "replace");
});

Deno.test("the unattended toolCall goes from execute straight to reviewSlot when the call is lost", async () => {
  const lost = await run(
    unattendedToolCallMachine,
    new MockExecutor({ probe: { lost: "the source exited" } }),
  );
  assert.deepEqual(lost.states, ["execute", "reviewSlot", "barrierAcknowledge", "released"]);
  assert.equal(lost.slotted?.response.content, "tool call lost: the source exited");
});

Deno.test("a toolCall releases its call once, whatever the number of release events", async () => {
  for (const logic of [toolCallMachine, unattendedToolCallMachine]) {
    const executor = new MockExecutor({ probe: "fine" });
    const released = await run(logic, executor, { releases: 2 });
    assert.equal(executor.releases.length, 1);
    assert.equal(released.output.delivery.kind, "delivered");
  }
});

Deno.test("isUnattended holds exactly when nobody is asked before or after the run", () => {
  assert.equal(isUnattended(policy("unattended", "unattended")), true);
  assert.equal(isUnattended(policy("skip", "unattended")), true);
  for (const result of ["ask", "edit"] as const) {
    assert.equal(isUnattended(policy(result, "unattended")), false);
  }
  for (const run of ["ask", "edit", "skip"] as const) {
    assert.equal(isUnattended(policy("unattended", run)), false);
  }
});
