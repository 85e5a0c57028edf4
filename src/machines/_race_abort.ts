/**
 * Private helper: settle with whatever comes first, the work or the abort.
 * Prompts are raced against the cancellation signal so that Ctrl-C ends a
 * call even when a prompter ignores its signal.
 *
 * @module
 */

/** What {@linkcode raceAbort} yields when the signal won. */
export const ABORTED: unique symbol = Symbol("aborted");

/** Resolves with `work`'s value, or with {@linkcode ABORTED} once `signal` aborts. */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    work.catch(() => {}); // settled later; nobody is waiting for it any more
    return Promise.resolve(ABORTED);
  }
  return new Promise<T | typeof ABORTED>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {});
      resolve(ABORTED);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
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
