/**
 * The machines as `createMachine` configs, for the tools XState people
 * use (Stately Studio's import, the Stately editor, `createMachine` itself):
 * states, transitions, `after` delays, and guards, actions and actors by
 * the names `setup` gives them. Their implementations stay in spillway:
 * a config given to `createMachine` builds the same states and
 * transitions, and runs once the named parts are provided.
 *
 * @module
 */

import type { AnyStateMachine } from "xstate";
import { SPILLWAY_MACHINES } from "./machines_markdown.ts";

/** A machine's config as JSON data: what its definition says, without the functions. */
export type MachineConfigJson = { readonly id: string; readonly [key: string]: unknown };

/**
 * The config of `machine` as plain JSON data (inline functions, such as
 * context and input mappers, are left out; named parts stay names).
 */
export function machineConfig(machine: AnyStateMachine): MachineConfigJson {
  return JSON.parse(JSON.stringify(machine.config));
}

/**
 * `names` (all of {@linkcode SPILLWAY_MACHINES} by default), each name
 * mapped to its machine's config.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMachine } from "xstate";
 * import { machineConfigs } from "./machine_configs.ts";
 * const { commit } = machineConfigs(["commit"]);
 * assert.equal(commit?.id, "commit");
 * assert.ok(Object.keys(createMachine(commit ?? { id: "none" }).states).length > 3);
 * ```
 */
export function machineConfigs(
  names: readonly string[] = Object.keys(SPILLWAY_MACHINES),
): Record<string, MachineConfigJson> {
  return Object.fromEntries(names.flatMap((name) => {
    const machine = SPILLWAY_MACHINES[name];
    return machine === undefined ? [] : [[name, machineConfig(machine)]];
  }));
}
