/**
 * Private helper: why an actor moved, read from its machine's definition.
 * Inspection events say which event an actor took and which state it
 * reached, not which transition or guard did it; the definition does: the
 * transition on that event (or an eventless one right after it) from the
 * state it was in, or one of its ancestors, to the state it reached.
 *
 * @module
 */

import type { AnyStateMachine } from "xstate";

/** Why an actor moved: the event, and the guard that let it (with `always` when eventless). */
export interface TakenTransition {
  readonly event: string;
  readonly guard?: string;
  /** The transition that moved it was eventless, taken as soon as its guard held after `event`. */
  readonly always?: true;
}

/** The parts of XState's state nodes read here. */
interface Node {
  readonly id: string;
  readonly states: Readonly<Record<string, Node>>;
  readonly transitions: ReadonlyMap<string, readonly Transition[]>;
  readonly always?: readonly Transition[];
}
interface Transition {
  readonly target?: readonly { readonly id: string }[];
  readonly guard?: unknown;
}

function nodesAlong(machine: AnyStateMachine, path: readonly string[]): Node[] {
  const nodes: Node[] = [];
  let node: Node | undefined = machine.root as unknown as Node;
  for (const key of path) {
    node = node?.states[key];
    if (node === undefined) break;
    nodes.push(node);
  }
  return nodes;
}

function guardName(guard: unknown): string | undefined {
  if (typeof guard === "string") return guard;
  const type = (guard as { type?: unknown } | undefined)?.type;
  return typeof type === "string" ? type : undefined;
}

/**
 * The transition `machine` took on `event` from the state at `from` to the
 * state at `to` (paths of state keys); `undefined` when the definition has
 * no such transition (the state did not change, or an ancestor's did).
 */
export function takenTransition(
  machine: AnyStateMachine,
  from: readonly string[],
  event: string,
  to: readonly string[],
): TakenTransition | undefined {
  const reached = new Set(nodesAlong(machine, to).map((node) => node.id));
  const leads = (t: Transition) => (t.target ?? []).some((target) => reached.has(target.id));
  const sources = nodesAlong(machine, from).reverse();
  for (const node of sources) {
    const taken = (node.transitions.get(event) ?? []).find(leads);
    if (taken !== undefined) return withGuard({ event }, taken.guard);
  }
  for (const node of sources) {
    const taken = (node.always ?? []).find(leads);
    if (taken !== undefined) return withGuard({ event, always: true }, taken.guard);
  }
  return undefined;
}

function withGuard(taken: TakenTransition, guard: unknown): TakenTransition {
  const name = guardName(guard);
  return name === undefined ? taken : { ...taken, guard: name };
}
