/**
 * The execution link: one call inside the executor, from start to release,
 * as a plain object. The phase makes one per call that can run; whoever
 * drives the call starts it (the phase itself for calls nobody is asked
 * about, the call's `toolCall` actor otherwise) and the commit releases it.
 * It is to the executor what an actor ref is to an actor: a handle, not
 * data; the machines learn what happened to the call from the promises it
 * returns (`start()`, `release()`, `delivered`), as done events of the actors
 * that await them.
 *
 * Why not an actor per call: creating, starting and stopping one costs about
 * 30 µs here, more than the whole budget of a call in a 1,000-call batch.
 *
 * Each link owns its call's abort signal, so a call's cancellation never
 * puts a listener on a signal shared by thousands of calls (adding and
 * removing listeners scans the list: quadratic in the number of calls).
 * {@linkcode ExecutionLink.cancel} aborts it; the phase cancels every link
 * when the turn is cancelled.
 *
 * @module
 */

import type { ToolCall } from "../review/tool_call.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import type {
  Acknowledgement,
  DeliveryOutcome,
  ExecutionHandle,
  ExecutionOutcome,
  Executor,
} from "../service/executor.ts";
import { reasonText } from "../errors/reason_text.ts";

/** What a call that never reached the executor "delivers": the runtime itself is its caller. */
function deliveryWithoutHandle(
  ack: Acknowledgement,
  recorded: ToolCallResponse | undefined,
): DeliveryOutcome {
  if (ack.kind === "fail") return { kind: "failed", message: ack.message };
  if (ack.kind === "replace" && recorded !== undefined) {
    return { kind: "delivered", response: recorded };
  }
  return { kind: "failed", message: "the call never reached the executor: nothing to deliver" };
}

/** The failure a call is released with when its phase stopped before the commit released it. */
export function abandonedMessage(callId: string): string {
  return `the call ${callId} was abandoned before its result was recorded`;
}

/**
 * One call inside the executor. Every method is safe to call in any order
 * and more than once: the call starts once, is released once, and a release
 * that comes before the call settled waits for it, so the executor always
 * sees start → parked → release.
 */
export class ExecutionLink {
  readonly #executor: Executor | undefined;
  /**
   * The call's cancellation, made when first needed. Once the call settled,
   * its executor no longer listens, so an unaborted controller is dropped:
   * a batch holds thousands of settled links until its commit, and a
   * controller with its signal is a fifth of what a link holds. Whoever
   * asks for the signal afterwards (a result prompt) gets a fresh one.
   */
  #controller: AbortController | undefined;
  #handle: ExecutionHandle | undefined;
  #outcome: Promise<ExecutionOutcome> | undefined;
  /** The outcome once it settled: a release then reaches the executor at once. */
  #settled: ExecutionOutcome | undefined;
  #released: Promise<DeliveryOutcome> | undefined;
  #delivered: PromiseWithResolvers<DeliveryOutcome> | undefined;
  #callId: string;

  /**
   * A link for `callId` that will run in `executor`, or one for a call
   * already running elsewhere (`handle`: an outside client's call that the
   * service parked), which is never started here.
   *
   * @param callId the call's id (for messages)
   * @param source the executor that will run the call, or the running call's handle
   */
  constructor(callId: string, source: { executor: Executor } | { handle: ExecutionHandle }) {
    this.#callId = callId;
    if ("handle" in source) {
      this.#executor = undefined;
      this.#handle = source.handle;
      this.#outcome = this.#settles(source.handle.outcome);
    } else {
      this.#executor = source.executor;
    }
  }

  /** The call's own cancellation: aborted by {@linkcode cancel}. */
  get signal(): AbortSignal {
    return this.#control().signal;
  }

  /**
   * Starts `call` (its arguments may have been edited since the link was
   * made), once; later calls return the first outcome. The outcome never
   * rejects: a broken executor ends the call as `failed`.
   */
  start(call: ToolCall): Promise<ExecutionOutcome> {
    if (this.#outcome !== undefined) return this.#outcome;
    this.#callId = call.id;
    try {
      this.#handle = this.#executor?.start(call, { signal: this.signal });
      this.#outcome = this.#handle === undefined
        ? this.#settleAs({ kind: "failed", reason: "no executor" })
        : this.#settles(this.#handle.outcome);
    } catch (error) {
      this.#outcome = this.#settleAs({ kind: "failed", reason: reasonText(error) });
    }
    return this.#outcome;
  }

  /**
   * Releases the call with the Host's decision, once; later calls return the
   * first delivery. Never rejects: a broken executor's release is a failed
   * delivery. `recorded` is what the stream holds (absent when nothing was
   * recorded).
   */
  release(ack: Acknowledgement, recorded: ToolCallResponse | undefined): Promise<DeliveryOutcome> {
    if (this.#released !== undefined) return this.#released;
    const outcome = this.#outcome;
    // A call that settled is released at once (most are: the commit
    // releases parked calls), without a promise chain per call.
    this.#released = outcome === undefined
      ? Promise.resolve(deliveryWithoutHandle(ack, recorded))
      : this.#settled !== undefined
      ? this.#deliver(ack, recorded)
      : outcome.then(() => this.#deliver(ack, recorded));
    if (this.#delivered !== undefined) this.#released.then(this.#delivered.resolve);
    return this.#released;
  }

  /** Resolves with what the caller received, once someone released the call. */
  get delivered(): Promise<DeliveryOutcome> {
    if (this.#released !== undefined) return this.#released;
    this.#delivered ??= Promise.withResolvers<DeliveryOutcome>();
    return this.#delivered.promise;
  }

  /** Cancels the call (its signal aborts with `reason`); a call that already settled is not affected. */
  cancel(reason: unknown): void {
    this.#control().abort(reason);
  }

  #control(): AbortController {
    return this.#controller ??= new AbortController();
  }

  /**
   * Gives the call up: its phase stopped before the commit released it. A
   * running call is cancelled, and a started call is released with a
   * failure once it settled, so nothing stays parked in the executor. A call
   * already released is not affected.
   */
  abandon(): void {
    if (this.#released !== undefined) return;
    this.cancel(new Error("the tool phase was stopped before its calls were released"));
    void this.release({ kind: "fail", message: abandonedMessage(this.#callId) }, undefined);
  }

  /**
   * The call's outcome, noted once it settled. The executor's contract says
   * an outcome never rejects; a broken one still settles, as `failed`.
   */
  #settles(outcome: Promise<ExecutionOutcome>): Promise<ExecutionOutcome> {
    return outcome.then(
      (settled) => this.#settle(settled),
      (error: unknown) => this.#settle({ kind: "failed", reason: reasonText(error) }),
    );
  }

  #settle(settled: ExecutionOutcome): ExecutionOutcome {
    this.#settled = settled;
    if (this.#controller?.signal.aborted === false) this.#controller = undefined;
    return settled;
  }

  /** An outcome known before the call ran (it could not start). */
  #settleAs(outcome: ExecutionOutcome): Promise<ExecutionOutcome> {
    this.#settled = outcome;
    return Promise.resolve(outcome);
  }

  #deliver(ack: Acknowledgement, recorded: ToolCallResponse | undefined): Promise<DeliveryOutcome> {
    const handle = this.#handle;
    if (handle === undefined) return Promise.resolve(deliveryWithoutHandle(ack, recorded));
    try {
      return handle.release(ack, recorded).then(undefined, releaseFailed);
    } catch (error) {
      return Promise.resolve(releaseFailed(error));
    }
  }
}

/** What the caller of a call whose executor broke on release received. */
function releaseFailed(error: unknown): DeliveryOutcome {
  return { kind: "failed", message: `release failed: ${reasonText(error)}` };
}
