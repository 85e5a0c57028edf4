/**
 * The one abort race of spillway: make any promise give way to an abort
 * signal. Tool sources use it so that a cancelled call ends at once even
 * when the tool ignores its signal; the machines use it for prompts, so
 * that Ctrl-C ends a call even when a prompter ignores its signal.
 *
 * @module
 */

/**
 * Settles like `promise`, or rejects with `signal.reason` as soon as `signal`
 * aborts, whichever comes first. The abort listener is removed once either
 * happens, so long-lived signals do not accumulate listeners; a rejection
 * of `promise` after the signal won is swallowed (nobody waits for it any
 * more).
 *
 * @param promise the work to wait for
 * @param signal ends the wait early
 * @returns what `promise` settles with, unless `signal` aborted first
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { raceAbort } from "./race_abort.ts";
 * assert.equal(await raceAbort(Promise.resolve(1), new AbortController().signal), 1);
 * const controller = new AbortController();
 * const waiting = raceAbort(new Promise(() => {}), controller.signal);
 * controller.abort("stop");
 * await assert.rejects(waiting, (reason) => reason === "stop");
 * ```
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
