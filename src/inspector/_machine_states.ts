/**
 * Private helper: a machine's top-level states found by what they do,
 * read from its definition (its public state nodes), so that code which
 * follows a machine from outside (the replay of calls that have no actor)
 * names the states the definition has instead of keeping a copy of their
 * names. Each lookup throws when the definition no longer has exactly one
 * such state: a renamed action fails at load, not in a drawing.
 *
 * @module
 */

import type { AnyStateMachine } from "xstate";

/** The parts of XState's `StateNode` read here. */
interface StateNode {
  readonly key: string;
  readonly type: string;
  readonly states: Readonly<Record<string, StateNode>>;
  readonly initial?: { readonly target: readonly StateNode[] } | undefined;
  readonly invoke: readonly { readonly src: unknown }[];
  readonly entry: readonly unknown[];
}

function topStates(machine: AnyStateMachine): StateNode[] {
  return Object.values((machine.root as unknown as StateNode).states);
}

function onlyOne(machine: AnyStateMachine, what: string, found: readonly StateNode[]): string {
  const [state, ...more] = found;
  if (state === undefined || more.length > 0) {
    throw new Error(`${machine.id} has ${found.length} top-level states that ${what}, not one`);
  }
  return state.key;
}

/** The machine's initial state. */
export function initialState(machine: AnyStateMachine): string {
  const initial = (machine.root as unknown as StateNode).initial?.target ?? [];
  return onlyOne(machine, "are initial", initial);
}

/** The machine's final state. */
export function finalState(machine: AnyStateMachine): string {
  return onlyOne(machine, "are final", topStates(machine).filter((node) => node.type === "final"));
}

/** The state that invokes the actor named `actor` in the machine's `setup`. */
export function stateInvoking(machine: AnyStateMachine, actor: string): string {
  return onlyOne(
    machine,
    `invoke ${actor}`,
    topStates(machine).filter((node) => node.invoke.some(({ src }) => src === actor)),
  );
}

/** The state whose entry runs the action named `action` in the machine's `setup`. */
export function stateEntering(machine: AnyStateMachine, action: string): string {
  const named = (entry: unknown) =>
    entry === action ||
    (typeof entry === "object" && entry !== null && "type" in entry && entry.type === action);
  return onlyOne(
    machine,
    `run ${action} on entry`,
    topStates(machine).filter((node) => node.entry.some(named)),
  );
}
