/**
 * The execution link: what a `toolCall` keeps for its whole life, standing
 * for the call inside the executor. The toolCall starts it (once any run
 * prompt is settled) and, after the commit, releases it; the link reports
 * back when the call settled (parked or ended early) and what the caller
 * received. The executor's handle lives here and nowhere else.
 *
 * The link is a plain object, not an actor: a callback actor per call (one
 * more actor to create, start and stop, two more events through the actor
 * system) was a fifth of the machines' cost in a 1,000-call phase. The
 * toolCall binds the link to its own life instead, as it starts: once the
 * toolCall completes — released, or stopped by its parent — the link goes
 * quiet, and a link that started but was never released releases its call
 * with a failure as soon as the call settles, so no call stays parked in the
 * executor. Cancelling a call that is still running is the signal's job: a
 * call group that is stopped aborts the signal of its calls.
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
import { reasonText } from "../service/reason_text.ts";

/** The call settled: parked on its barrier, or ended early. */
export interface ExecutionSettledEvent {
  /** The event type. */
  readonly type: "execution.settled";
  /** How the execution ended before the Host saw a result. */
  readonly outcome: ExecutionOutcome;
}

/** The executor released the call. */
export interface ExecutionReleasedEvent {
  /** The event type. */
  readonly type: "execution.released";
  /** What the caller received, checked against what was recorded. */
  readonly delivery: DeliveryOutcome;
}

/** What a link reports to its toolCall. */
export type ExecutionReport = ExecutionSettledEvent | ExecutionReleasedEvent;

/** Where a link's reports go, and whose completion ends the link. */
export interface LinkOwner {
  /** Receives the link's reports. */
  send(event: ExecutionReport): void;
  /** Tells `observer.complete` once the owner is done or stopped, `observer.error` if it failed. */
  subscribe(observer: { complete(): void; error(error: unknown): void }): unknown;
}

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

/**
 * One call inside the executor, from start to release. A release that
 * arrives before the call settled waits for it, so the executor always sees
 * `start` → parked → `release`.
 */
export class ExecutionLink {
  readonly #executor: Executor;
  readonly #signal: AbortSignal;
  #owner: LinkOwner | undefined;
  #live = true;
  #callId: string | undefined;
  #handle: ExecutionHandle | undefined;
  /** Set once started; resolves when the call settled (parked or ended early). */
  #settled: Promise<void> | undefined;
  #hasSettled = false;
  #releasing = false;

  /**
   * A link that runs its call in `executor`, cancelled by `signal`.
   *
   * @param executor runs and releases the call
   * @param signal cancels the call
   */
  constructor(executor: Executor, signal: AbortSignal) {
    this.#executor = executor;
    this.#signal = signal;
  }

  /**
   * Binds the link to its toolCall, once, before anything else: `owner` gets
   * the link's reports, and its completion (done or stopped) ends the link.
   */
  bind(owner: LinkOwner): void {
    this.#owner = owner;
    // An error listener too: XState reports an actor's error as unhandled
    // when one of its observers has none. The parent handles the error.
    owner.subscribe({ complete: () => this.#end(), error: () => this.#end() });
  }

  /** Starts the call, once; the owner gets `execution.settled` when it parked or ended early. */
  start(call: ToolCall): void {
    this.#callId = call.id;
    let outcome: Promise<ExecutionOutcome>;
    try {
      this.#handle = this.#executor.start(call, { signal: this.#signal });
      outcome = this.#handle.outcome;
    } catch (error) {
      outcome = Promise.resolve({ kind: "failed", reason: reasonText(error) });
    }
    // The contract says `outcome` never rejects; a broken executor still ends in a slot.
    this.#settled = outcome.then(
      (settled) => this.#settle(settled),
      (error: unknown) => this.#settle({ kind: "failed", reason: reasonText(error) }),
    );
  }

  /**
   * Releases the call, once (later calls are ignored); the owner gets
   * `execution.released` with what the caller received. A release that
   * arrives before the call settled waits for it, so the executor always
   * sees `start` → parked → `release`.
   */
  release(ack: Acknowledgement, recorded: ToolCallResponse | undefined): void {
    // Once: a second release would ask the executor to deliver twice.
    if (this.#releasing) return;
    this.#releasing = true;
    const deliver = () =>
      void this.#deliver(ack, recorded).then((delivery) =>
        this.#report({ type: "execution.released", delivery })
      );
    if (this.#settled === undefined || this.#hasSettled) deliver();
    else void this.#settled.then(deliver);
  }

  #settle(outcome: ExecutionOutcome): void {
    this.#hasSettled = true;
    this.#report({ type: "execution.settled", outcome });
  }

  /** Never rejects: a broken executor's release is a failed delivery. */
  #deliver(ack: Acknowledgement, recorded: ToolCallResponse | undefined): Promise<DeliveryOutcome> {
    const handle = this.#handle;
    if (handle === undefined) return Promise.resolve(deliveryWithoutHandle(ack, recorded));
    const failed = (error: unknown): DeliveryOutcome => ({
      kind: "failed",
      message: `release failed: ${reasonText(error)}`,
    });
    try {
      return handle.release(ack, recorded).then(undefined, failed);
    } catch (error) {
      return Promise.resolve(failed(error));
    }
  }

  #report(event: ExecutionReport): void {
    if (this.#live) this.#owner?.send(event);
  }

  /**
   * The owner completed: go quiet. A call that started but was never released
   * is abandoned: released with a failure once it settled (its signal, aborted
   * by a stopped call group, makes a running call settle promptly).
   */
  #end(): void {
    this.#live = false;
    const callId = this.#callId;
    if (callId === undefined || this.#releasing) return;
    const message = abandonedMessage(callId);
    void this.#settled?.then(() => this.#deliver({ kind: "fail", message }, undefined));
  }
}

/** The failure a call is released with when its toolCall stopped before the commit released it. */
export function abandonedMessage(callId: string): string {
  return `the call ${callId} was abandoned before its result was recorded`;
}
