/**
 * Abort helpers shared by the service and the builtin tools: make any
 * promise give way to an abort signal, and turn an abort reason into the
 * one-line text an outcome carries.
 *
 * @module
 */

/**
 * Settles like `promise`, or rejects with `signal.reason` as soon as `signal`
 * aborts, whichever comes first. The listener is removed once either
 * happens, so long-lived signals do not accumulate listeners.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // Keep a late rejection of `promise` from surfacing as unhandled.
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
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

/** The text of an abort reason or a thrown value, for outcomes and messages. */
export function reasonText(reason: unknown): string {
  if (reason instanceof Error) return reason.message || reason.name;
  if (typeof reason === "string") return reason;
  if (reason === undefined) return "aborted";
  try {
    return JSON.stringify(reason) ?? String(reason);
  } catch {
    return String(reason);
  }
}
