/**
 * A bounded wait used by every shutdown sequence of the process-backed tool
 * sources: give a process (or a pipe) a grace period, then escalate.
 *
 * @module
 */

/**
 * Whether `promise` settles (either way) within `ms` milliseconds. The timer
 * is always cleared, so a shutdown that finishes early leaves nothing behind.
 *
 * @param promise what to wait for; its rejection counts as settling
 * @param ms the grace period in milliseconds
 * @returns `true` when it settled in time
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { settlesWithin } from "./settles_within.ts";
 * assert.equal(await settlesWithin(Promise.resolve(), 10), true);
 * assert.equal(await settlesWithin(new Promise(() => {}), 10), false);
 * ```
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true, () => true), expired]);
  } finally {
    clearTimeout(timer);
  }
}
