/**
 * Runs one turn to its end: the convenience entry point over
 * {@linkcode turnMachine} for embedders and commands. Inspection events (the
 * `--inspect FILE` stream) are passed through untouched.
 *
 * @module
 */

import { createActor, type InspectionEvent, toPromise } from "xstate";
import { type TurnInput, turnMachine, type TurnOutput } from "./turn_machine.ts";

/** Options of {@linkcode runTurn}. */
export interface RunTurnOptions {
  /**
   * Receives every XState inspection event of the turn and its children
   * (`@xstate.actor`, `@xstate.event`, `@xstate.snapshot`, …). Default: none.
   */
  readonly inspect?: (event: InspectionEvent) => void;
}

/**
 * Creates a `turn` actor, starts it and resolves with its output once it is
 * `finished` or `failed`. A failed turn resolves (with `status: "failed"`);
 * only a fault of the machine itself rejects.
 *
 * @param input the turn's prompt and injected dependencies
 * @param options inspection
 * @returns the turn's output
 * @throws {RangeError} when `input.maxCycles` is not a whole number of at least 1
 */
export async function runTurn(input: TurnInput, options: RunTurnOptions = {}): Promise<TurnOutput> {
  const actor = createActor(turnMachine, {
    id: "turn",
    input,
    ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
  });
  const done = toPromise(actor);
  actor.start();
  try {
    return await done;
  } finally {
    actor.stop();
  }
}
