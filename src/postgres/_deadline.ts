/**
 * A bound on waiting for the database: the work's promise, or a rejection
 * once the time is up. The work itself is not stopped (a query in flight
 * cannot be taken back); the caller treats its outcome as unknown.
 *
 * @module
 */

/** Thrown when the database did not answer in time. */
export class DeadlineError extends Error {
  /** @param message what did not answer, and within how long */
  constructor(message: string) {
    super(message);
    this.name = "DeadlineError";
  }
}

/**
 * `work`, or a {@linkcode DeadlineError} with `message` after `ms`
 * milliseconds, whichever comes first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DeadlineError, withDeadline } from "./_deadline.ts";
 * assert.equal(await withDeadline(Promise.resolve(1), 100, "late"), 1);
 * await assert.rejects(withDeadline(new Promise(() => {}), 1, "late"), DeadlineError);
 * ```
 */
export function withDeadline<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(message)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
