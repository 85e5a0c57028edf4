/**
 * The execution service's parking lot: every call from its arrival to its
 * caller's result, each kept as a value of its state in the `parkedCall`
 * chart (`parked_call_machine.ts`; the union is `_lot_call.ts`), carrying exactly what that state needs:
 * a running call its source call's abort controller, a parked call the
 * `ParkedCall` the Host sees and how its source call ended, an acknowledged
 * call the Host's decision. Around them: who waits for a call to park,
 * cancellations that came before their call, the delivery slices, and the
 * drain when the service closes.
 *
 * @module
 */

import type { Logger } from "@logtape/logtape";
import { DeliverySlices } from "./_delivery_slices.ts";
import { type ParkWaiter, ParkWaiters } from "./_park_waiters.ts";
import { type CallerSide, handOver, type ParkChannel } from "./_hand_over.ts";
import type { Acknowledgement } from "./executor.ts";
import type { CallCancellation } from "./call_cancellation.ts";
import type { ParkedCall } from "./parked_call.ts";
import {
  assertParkedCallStep,
  type ParkedCallEventType,
  type ParkedCallState,
} from "./parked_call_machine.ts";
import type { SourceCallEnd } from "./source_call.ts";
import type { AcknowledgedCall, LotCall, ParkedLotCall } from "./_lot_call.ts";

/** What every call still in the lot when the service closes is told. */
const CLOSED = "runtime closed";

/** The calls of one execution service, from arrival to delivery. */
export class ParkingLot {
  readonly #log: Logger;
  readonly #calls = new Map<string, LotCall>();
  readonly #waiters: ParkWaiters;
  /** Cancellations of calls that have not arrived, and the channel they came from, if any. */
  readonly #pendingCancels = new Map<
    string,
    { reason: string | CallCancellation; channel: ParkChannel | undefined }
  >();
  readonly #slices = new DeliverySlices<AcknowledgedCall>((call) => this.#handOver(call));
  /** Calls not yet released, counting those whose result is being handed over. */
  #inFlight = 0;
  #drained: PromiseWithResolvers<void> | undefined;
  #closed = false;

  /** @param log where failing listeners and spool files that could not be removed are logged */
  constructor(log: Logger) {
    this.#log = log;
    this.#waiters = new ParkWaiters(log);
  }

  /** Whether {@linkcode close} was called: calls that park now are failed at once. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Whether a call of that id is in the lot (running, parked, or acknowledged). */
  has(callId: string): boolean {
    return this.#calls.has(callId);
  }

  /**
   * Where call `callId` is in the `parkedCall` chart: `running`, `parked`
   * or `acknowledged`; `undefined` once released (or before it arrived).
   */
  stateOf(callId: string): Exclude<ParkedCallState, "released"> | undefined {
    return this.#calls.get(callId)?.state;
  }

  /** The calls parked now, waiting for their acknowledgement. */
  parked(): ParkedCall[] {
    const parked: ParkedCall[] = [];
    for (const call of this.#calls.values()) if (call.state === "parked") parked.push(call.parked);
    return parked;
  }

  /**
   * A call arrives, `running`: the returned controller aborts its source
   * call. A cancellation that came before the call is applied at once.
   */
  arrive(callId: string, caller: CallerSide): AbortController {
    const controller = new AbortController();
    this.#calls.set(callId, { state: "running", controller, ...caller });
    this.#inFlight += 1;
    const pending = this.#pendingCancels.get(callId);
    if (pending !== undefined && (pending.channel ?? caller.channel) === caller.channel) {
      this.#pendingCancels.delete(callId);
      controller.abort(pending.reason);
    }
    return controller;
  }

  /**
   * The running call's source call ended: it parks on its barrier, and
   * whoever waits for it is told. A call that parks once the lot is closed
   * is failed at once: no Host is left to acknowledge it.
   */
  park(callId: string, parked: ParkedCall, end: SourceCallEnd): void {
    const call = this.#calls.get(callId);
    if (call?.state !== "running") throw new TypeError(`call \`${callId}\` is not running`);
    const { deliver, fail, session, channel } = call;
    const next: ParkedLotCall = { state: "parked", parked, end, deliver, fail, session, channel };
    this.#step(callId, call, "park", next);
    this.#waiters.resolve(callId, parked);
    try {
      channel?.parked(parked);
    } catch (error) {
      this.#log.error("telling the executor channel {callId} parked failed: {error}", {
        callId,
        error,
      });
    }
    if (this.#closed && this.#calls.get(callId) === next) {
      this.acknowledge(callId, { kind: "fail", message: CLOSED });
    }
  }

  /** The service failed the running call itself (a fault, not the tool's): its caller gets `error`. */
  fault(callId: string, error: unknown): void {
    const call = this.#calls.get(callId);
    if (call?.state !== "running") throw new TypeError(`call \`${callId}\` is not running`);
    this.#step(callId, call, "fault", undefined);
    this.#released();
    call.fail(error);
  }

  /**
   * Cancels call `callId`: a running call's source call is aborted, and it
   * still parks (as `cancelled`). A call that has not arrived is cancelled
   * when it does.
   *
   * @returns `false` when the call is past running (nothing to cancel)
   */
  cancel(callId: string, reason: string | CallCancellation, from?: ParkChannel): boolean {
    const call = this.#calls.get(callId);
    if (call === undefined) {
      this.#pendingCancels.set(callId, { reason, channel: from });
      return true;
    }
    if (call.state !== "running" || (from !== undefined && call.channel !== from)) return false;
    this.#step(callId, call, "cancel", call);
    call.controller.abort(reason);
    return true;
  }

  /** Cancels every running call of client session `session`. */
  cancelSession(session: string, reason: string | CallCancellation): void {
    for (const [callId, call] of this.#calls) {
      if (call.state === "running" && call.session === session) this.cancel(callId, reason);
    }
  }

  /**
   * The Host decided what parked call `callId`'s caller receives; its
   * caller gets it once the calls acknowledged before it got theirs.
   *
   * @param from the executor channel the acknowledgement came over: it
   *   releases only that connection's calls
   * @throws {TypeError} when no call of that id is parked (or none of `from`'s)
   */
  acknowledge(callId: string, ack: Acknowledgement, from?: ParkChannel): void {
    const call = this.#calls.get(callId);
    if (call?.state !== "parked" || (from !== undefined && call.channel !== from)) {
      throw new TypeError(`call \`${callId}\` is not parked`);
    }
    const { end, deliver, fail, session, channel } = call;
    const next: AcknowledgedCall = {
      state: "acknowledged",
      callId,
      end,
      ack,
      deliver,
      fail,
      session,
      channel,
    };
    this.#step(callId, call, "acknowledge", next);
    this.#slices.push(next);
  }

  /** Calls `listener` with every call as it parks. Returns the unsubscribe function. */
  onParked(listener: (call: ParkedCall) => void): () => void {
    return this.#waiters.listen(listener);
  }

  /** Calls `waiter.resolve` when call `callId` parks (at once if it is parked now). */
  whenParked(callId: string, waiter: ParkWaiter): void {
    const call = this.#calls.get(callId);
    if (call?.state === "parked") {
      waiter.resolve(call.parked);
      return;
    }
    this.#waiters.add(callId, waiter);
  }

  /**
   * Gives up on a call that never reached the service: drops its pending
   * cancellation and rejects whoever waits for it to park.
   */
  forget(callId: string): void {
    this.#pendingCancels.delete(callId);
    this.#waiters.reject(callId, new TypeError(`call \`${callId}\` never reached the service`));
  }

  /** Drops the pending cancellation executor channel `from` sent for a call that never came. */
  withdrawCancel(callId: string, from: ParkChannel): void {
    if (this.#pendingCancels.get(callId)?.channel === from) this.#pendingCancels.delete(callId);
  }

  /**
   * Closes the lot: running calls are cancelled (they park, and are failed
   * then), parked ones failed with "runtime closed", and whoever waits for a
   * call that is not here is told it never comes. See {@linkcode drained}.
   */
  close(): void {
    this.#closed = true;
    for (const [callId, call] of this.#calls) {
      if (call.state === "running") this.cancel(callId, CLOSED);
      else if (call.state === "parked") this.acknowledge(callId, { kind: "fail", message: CLOSED });
    }
    this.#pendingCancels.clear();
    // Waiters of calls in the lot are told when those park; the others wait for nothing.
    for (const callId of this.#waiters.callIds()) {
      if (!this.#calls.has(callId)) {
        this.#waiters.reject(callId, new TypeError(`call \`${callId}\` ended: ${CLOSED}`));
      }
    }
  }

  /** Resolves once every call that arrived has been released, its caller handed its result. */
  drained(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    this.#drained ??= Promise.withResolvers();
    return this.#drained.promise;
  }

  /** Moves call `callId` from `from` to `to` (`undefined`: released), as the chart allows. */
  #step(
    callId: string,
    from: LotCall,
    event: ParkedCallEventType,
    to: LotCall | undefined,
  ): void {
    assertParkedCallStep(from.state, event, to?.state ?? "released");
    if (to === undefined) this.#calls.delete(callId);
    else if (to !== from) this.#calls.set(callId, to);
  }

  /** An acknowledged call's slice came: its caller gets what the Host decided. */
  #handOver(call: AcknowledgedCall): void {
    this.#step(call.callId, call, "deliver", undefined);
    handOver(call, call.end, call.ack, { log: this.#log, done: this.#done });
  }

  readonly #done = (): void => this.#released();

  #released(): void {
    this.#inFlight -= 1;
    if (this.#inFlight === 0) this.#drained?.resolve();
  }
}
