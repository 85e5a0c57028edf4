/**
 * The clock every deadline runs on: a tool call's time limit, an upstream
 * server's start-up timeout, its restart back-off. It has the shape of
 * XState's `Clock` (`setTimeout`, `clearTimeout`) plus `now()`, so the same
 * object drives an actor's delays (`createActor(machine, { clock })`) and
 * the plain deadlines outside any chart ({@linkcode CallDeadline}), and
 * XState's `SimulatedClock` fits it as it is: tests move time on by hand,
 * they never wait for it.
 *
 * @module
 */

/** Timers and the time they are measured in, in ms. */
export interface TimerClock {
  /** The current time in ms, on the clock's own scale (only differences matter). */
  now(): number;
  /** Calls `callback` once `ms` have passed; returns what `clearTimeout` takes. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Drops a timer that has not fired. Unknown or fired ids are ignored. */
  clearTimeout(id: unknown): void;
}

/**
 * The real clock: `performance.now()` and the runtime's own timers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SYSTEM_CLOCK } from "./timer_clock.ts";
 * const timer = SYSTEM_CLOCK.setTimeout(() => assert.fail("a cleared timer fired"), 0);
 * SYSTEM_CLOCK.clearTimeout(timer);
 * assert.ok(SYSTEM_CLOCK.now() <= performance.now());
 * ```
 */
export const SYSTEM_CLOCK: TimerClock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (id) => clearTimeout(id as number),
};
