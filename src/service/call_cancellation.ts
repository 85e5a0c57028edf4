/**
 * Why a call was cancelled, when whoever cancelled it knows: `spillway
 * serve` tells a client's own cancellation (`notifications/cancelled`)
 * from the client going away and from the gateway shutting down. The reason
 * rides on the abort (`controller.abort(new CallCancellation(cause))`); the
 * call then parks as `cancelled` with that `cause`, and the Host words the
 * recorded response from it unless the tool's `cancellation_response` is
 * configured. A cancellation without one (Ctrl-C in `query`, a stopped
 * turn) is worded by the tool's `cancellation_response` alone, as before.
 *
 * @module
 */

/** Who or what cancelled a call. */
export type CancellationCause =
  /** The client cancelled the request (`notifications/cancelled`), saying `reason` if it did. */
  | { readonly by: "client"; readonly reason?: string }
  /** The client's session ended while the call ran (`DELETE`, its stdin or connection closed). */
  | { readonly by: "disconnect" }
  /** `spillway serve` shut down (`reason`: `spillway serve is shutting down (terminated (SIGTERM))`). */
  | { readonly by: "shutdown"; readonly reason: string };

/**
 * An abort reason carrying its {@linkcode CancellationCause}; its message
 * is what a log or an outcome's `reason` says.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CallCancellation } from "./call_cancellation.ts";
 * const controller = new AbortController();
 * controller.abort(new CallCancellation({ by: "disconnect" }));
 * assert.deepEqual(CallCancellation.causeOf(controller.signal.reason), { by: "disconnect" });
 * assert.equal(CallCancellation.causeOf("cancelled"), undefined);
 * ```
 */
export class CallCancellation extends Error {
  /** Who or what cancelled the call. */
  readonly cancellation: CancellationCause;

  /** @param cancellation who or what cancelled the call */
  constructor(cancellation: CancellationCause) {
    super(
      cancellation.by === "client"
        ? `cancelled by the client${
          cancellation.reason === undefined ? "" : `: ${cancellation.reason}`
        }`
        : cancellation.by === "disconnect"
        ? "the client disconnected"
        : cancellation.reason,
    );
    this.name = "AbortError";
    this.cancellation = cancellation;
  }

  /** The cause an abort `reason` carries, if it is a {@linkcode CallCancellation}. */
  static causeOf(reason: unknown): CancellationCause | undefined {
    return reason instanceof CallCancellation ? reason.cancellation : undefined;
  }
}
