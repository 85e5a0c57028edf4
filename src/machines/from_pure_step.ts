/**
 * An actor for a step that is pure and synchronous (the phase end's cap),
 * drawn and invoked like any other (`invoke: { src, onDone, onError }`),
 * but settled the moment it is created: its output is the step's return
 * value, its error what the step threw. XState's `fromPromise` would wrap
 * the same value in a promise, an abort controller and an event the actor
 * sends itself a microtask later, a hop a step that does no I/O has no use
 * for: the parent still gets `xstate.done.actor.<id>` (or
 * `xstate.error.actor.<id>`), in the same macrotask.
 *
 * @module
 */

import type { PromiseActorLogic, PromiseSnapshot } from "xstate";

/**
 * The logic of an actor that runs `step` on its input when it is created.
 *
 * @param step a pure function of the actor's input: it must not start
 *   anything (it runs inside the parent's transition)
 * @returns logic typed as `fromPromise`'s, so `onDone` sees `step`'s output
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createActor, setup } from "xstate";
 * import { fromPureStep } from "./from_pure_step.ts";
 * const machine = setup({ actors: { double: fromPureStep((n: number) => 2 * n) } })
 *   .createMachine({
 *     initial: "working",
 *     context: { result: 0 },
 *     states: {
 *       working: {
 *         invoke: { src: "double", input: 21, onDone: { target: "done", actions: ({ event }) => assert.equal(event.output, 42) } },
 *       },
 *       done: { type: "final" },
 *     },
 *   });
 * const actor = createActor(machine).start();
 * assert.equal(actor.getSnapshot().status, "done"); // no promise to wait for
 * ```
 */
export function fromPureStep<TOutput, TInput>(
  step: (input: TInput) => TOutput,
): PromiseActorLogic<TOutput, TInput> {
  return {
    config: step,
    getInitialSnapshot: (_scope, input): PromiseSnapshot<TOutput, TInput> => {
      try {
        return { status: "done", output: step(input), error: undefined, input: undefined };
      } catch (error) {
        return { status: "error", output: undefined, error, input: undefined };
      }
    },
    // Settled before it starts: no event changes it.
    transition: (snapshot) => snapshot,
    getPersistedSnapshot: (snapshot) => snapshot,
    restoreSnapshot: (snapshot) => snapshot as PromiseSnapshot<TOutput, TInput>,
  };
}
