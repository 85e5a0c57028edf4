/**
 * Composite guards a diagram can read: XState's own `and`, `or` and `not`,
 * each remembered with what it combines, so that `spillway inspect` spells
 * an inline composite out (`[ready and not late]`) from public facts
 * rather than from XState's private fields. A guard that means something
 * on its own still gets a name in `setup` (the diagram prints the name);
 * these are for a combination whose parts say it best.
 *
 * @module
 */

import { and, type EventObject, type MachineContext, not, or } from "xstate";

/** What a composite guard combines. */
export interface GuardParts {
  /** How: all of them, any of them, or not the one. */
  readonly kind: "and" | "or" | "not";
  /** The guards combined, as written (names, `{ type, params }` objects, composites). */
  readonly guards: readonly unknown[];
}

const composites = new WeakMap<object, GuardParts>();

function remembered<G extends object>(guard: G, parts: GuardParts): G {
  composites.set(guard, parts);
  return guard;
}

/**
 * XState's `and(guards)`, readable by {@linkcode guardParts}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { allOf, guardParts, notGuard } from "./guard_combinators.ts";
 * const late = notGuard("early");
 * assert.deepEqual(guardParts(allOf(["ready", late])), { kind: "and", guards: ["ready", late] });
 * assert.deepEqual(guardParts(late), { kind: "not", guards: ["early"] });
 * ```
 */
export function allOf<
  TContext extends MachineContext,
  TExpressionEvent extends EventObject,
  TArg extends unknown[],
>(
  guards: Parameters<typeof and<TContext, TExpressionEvent, TArg>>[0],
): ReturnType<typeof and<TContext, TExpressionEvent, TArg>> {
  return remembered(and<TContext, TExpressionEvent, TArg>(guards), { kind: "and", guards });
}

/** XState's `or(guards)`, readable by {@linkcode guardParts}. */
export function anyOf<
  TContext extends MachineContext,
  TExpressionEvent extends EventObject,
  TArg extends unknown[],
>(
  guards: Parameters<typeof or<TContext, TExpressionEvent, TArg>>[0],
): ReturnType<typeof or<TContext, TExpressionEvent, TArg>> {
  return remembered(or<TContext, TExpressionEvent, TArg>(guards), { kind: "or", guards });
}

/** XState's `not(guard)`, readable by {@linkcode guardParts}. */
export function notGuard<
  TContext extends MachineContext,
  TExpressionEvent extends EventObject,
  TArg,
>(
  guard: Parameters<typeof not<TContext, TExpressionEvent, TArg>>[0],
): ReturnType<typeof not<TContext, TExpressionEvent, TArg>> {
  return remembered(not<TContext, TExpressionEvent, TArg>(guard), { kind: "not", guards: [guard] });
}

/**
 * What `guard` combines, when it was made by {@linkcode allOf},
 * {@linkcode anyOf} or {@linkcode notGuard}; `undefined` for any other
 * guard (a name, a `{ type }` object, an inline function, XState's own
 * `and`/`or`/`not`).
 */
export function guardParts(guard: unknown): GuardParts | undefined {
  return typeof guard === "function" || (typeof guard === "object" && guard !== null)
    ? composites.get(guard)
    : undefined;
}
