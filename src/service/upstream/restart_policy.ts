/**
 * When an upstream connection that is down starts again: on demand (the
 * next call or listing starts it, as spillway does today), or by itself in
 * the background after a back-off that grows with each failed start, so a
 * server that is down at first can come up later without anyone retrying
 * by hand. The connection machine reads it for its `restartBackoff` delay.
 *
 * @module
 */

/** The first wait before a background restart after a failed start: 1 s, doubling per failure. */
export const RESTART_BACKOFF_FIRST_MS = 1_000;

/** The longest wait between background restarts: 60 s. */
export const RESTART_BACKOFF_MAX_MS = 60_000;

/** When a connection that is down starts again. */
export type RestartPolicy =
  /** When a call or a listing needs the server; a failed start fails it. */
  | { readonly when: "demand" }
  /** By itself: after a loss at once, after a failed start once the back-off passed. */
  | {
    readonly when: "background";
    /**
     * The wait before the next start after `failedStarts` consecutive
     * failed starts (0 after a loss), in ms. Default:
     * {@linkcode defaultRestartBackoffMs}.
     */
    readonly backoffMs?: (failedStarts: number) => number;
  };

/**
 * The default back-off: none after a loss, then
 * {@linkcode RESTART_BACKOFF_FIRST_MS} doubling per failed start up to
 * {@linkcode RESTART_BACKOFF_MAX_MS}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultRestartBackoffMs } from "./restart_policy.ts";
 * assert.deepEqual([0, 1, 2, 3, 7, 8].map(defaultRestartBackoffMs), [0, 1_000, 2_000, 4_000, 60_000, 60_000]);
 * ```
 */
export function defaultRestartBackoffMs(failedStarts: number): number {
  if (failedStarts <= 0) return 0;
  return Math.min(RESTART_BACKOFF_MAX_MS, RESTART_BACKOFF_FIRST_MS * 2 ** (failedStarts - 1));
}

/** How long a connection under `policy` waits before starting again, in ms: 0 on demand. */
export function restartBackoffMs(policy: RestartPolicy, failedStarts: number): number {
  if (policy.when === "demand") return 0;
  return (policy.backoffMs ?? defaultRestartBackoffMs)(failedStarts);
}
