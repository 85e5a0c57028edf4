/**
 * The `parkedCall` machine: the life of one call inside the execution
 * service, from its arrival to its caller's result. `running` while its
 * source works on it (a cancellation aborts the source call, and the call
 * still parks); `parked` on its barrier until the Host acknowledges it;
 * `acknowledged` until its delivery slice hands the caller its result;
 * `released` once the caller has it (or, on a fault of the service itself,
 * the error).
 *
 * The chart is the one definition, but no actor runs it: a 10,000-call
 * batch parks 10,000 calls, and an actor costs about 28 µs to create, start
 * and stop, more than a call's whole share of the pipeline (see
 * docs/architecture.md, "The parked call"). The parking lot keeps each call
 * as a plain value of its state instead, and steps it through the table
 * {@linkcode parkedCallTransition} derives from this machine's own
 * configuration once, when the module loads: a step the chart does not have
 * is a bug, and throws.
 *
 * @module
 */

import { setup } from "xstate";

/** The events of a parked call, as the chart names them. */
export type ParkedCallEvent =
  /** The source call ended (executed, lost, cancelled or failed): the call waits on its barrier. */
  | { readonly type: "park" }
  /** The caller or the Host gave up on the call: its source call is aborted. */
  | { readonly type: "cancel" }
  /** The service itself failed the call before it parked: the caller gets the error. */
  | { readonly type: "fault" }
  /** The Host decided what the caller receives. */
  | { readonly type: "acknowledge" }
  /** The call's delivery slice handed the caller its result. */
  | { readonly type: "deliver" };

/** The name of a {@linkcode ParkedCallEvent}. */
export type ParkedCallEventType = ParkedCallEvent["type"];

/** A state of the chart. */
export type ParkedCallState = "running" | "parked" | "acknowledged" | "released";

const machine = setup({
  types: { events: {} as ParkedCallEvent },
}).createMachine({
  id: "parkedCall",
  initial: "running",
  states: {
    running: {
      on: {
        // The source call is aborted; the call parks (as cancelled) when the source gives up.
        cancel: { target: "running" },
        park: { target: "parked" },
        fault: { target: "released" },
      },
    },
    parked: {
      on: { acknowledge: { target: "acknowledged" } },
    },
    acknowledged: {
      on: { deliver: { target: "released" } },
    },
    released: { type: "final" },
  },
});

/** The type of {@linkcode parkedCallMachine}. */
export type ParkedCallMachine = typeof machine;

/**
 * The `parkedCall` machine (states `running` → `parked` → `acknowledged` →
 * `released`), drawn by `spillway inspect`. No actor runs it: the parking
 * lot steps plain values through {@linkcode parkedCallTransition}.
 */
export const parkedCallMachine: ParkedCallMachine = machine;

const STATES: readonly ParkedCallState[] = ["running", "parked", "acknowledged", "released"];

/** State → event → the state it leads to: read from the chart once, when the module loads. */
const TRANSITIONS: ReadonlyMap<ParkedCallState, ReadonlyMap<string, ParkedCallState>> = (() => {
  const table = new Map<ParkedCallState, Map<string, ParkedCallState>>();
  const nodes = machine.root.states;
  for (const state of Object.keys(nodes)) {
    if (!isState(state)) throw new TypeError(`the parkedCall chart has an unknown state ${state}`);
    const edges = new Map<string, ParkedCallState>();
    for (const [event, transitions] of nodes[state]?.transitions ?? []) {
      const target = transitions[0]?.target?.[0]?.key ?? state;
      if (transitions.length !== 1 || !isState(target)) {
        throw new TypeError(`the parkedCall chart's ${state} --${event}--> is not one plain step`);
      }
      edges.set(event, target);
    }
    table.set(state, edges);
  }
  return table;
})();

function isState(name: string): name is ParkedCallState {
  return (STATES as readonly string[]).includes(name);
}

/**
 * The state `event` takes a call in `from` to, or `undefined` when the chart
 * has no such step (a cancellation of a call that already parked: nothing
 * to cancel; an acknowledgement of one that has not: the caller's mistake).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parkedCallTransition } from "./parked_call_machine.ts";
 * assert.equal(parkedCallTransition("running", "park"), "parked");
 * assert.equal(parkedCallTransition("running", "cancel"), "running");
 * assert.equal(parkedCallTransition("parked", "cancel"), undefined);
 * ```
 */
export function parkedCallTransition(
  from: ParkedCallState,
  event: ParkedCallEventType,
): ParkedCallState | undefined {
  return TRANSITIONS.get(from)?.get(event);
}

/**
 * The step of the chart that `event` takes from `from` to `to`: the parking
 * lot calls this on every step it makes, so a step the chart does not draw
 * cannot happen unnoticed.
 *
 * @throws {TypeError} when the chart has no `from` --`event`--> `to` (a bug in the service)
 */
export function assertParkedCallStep(
  from: ParkedCallState,
  event: ParkedCallEventType,
  to: ParkedCallState,
): void {
  if (parkedCallTransition(from, event) !== to) {
    throw new TypeError(
      `a parked call cannot go from ${from} to ${to} on ${event}: the parkedCall chart has no such step`,
    );
  }
}
