/**
 * Who waits for calls to park (the parking lot's): listeners, told of every
 * call as it parks, and waiters for one call, told once (when it parks, or
 * when the service gives up on it) and then dropped. One that throws is
 * logged; the others are still told.
 *
 * @module
 */

import type { Logger } from "@logtape/logtape";
import type { ParkedCall } from "./parked_call.ts";

/** Who waits for a call to park; see `ExecutionService.whenParked`. */
export interface ParkWaiter {
  /** The call parked. */
  resolve(call: ParkedCall): void;
  /** The service gave up on the call (forgotten, or closed before it arrived). */
  reject(error: TypeError): void;
}

/** The listeners, and the waiters of the calls that have not parked yet, by call id. */
export class ParkWaiters {
  readonly #log: Logger;
  readonly #listeners = new Set<(call: ParkedCall) => void>();
  readonly #byCall = new Map<string, ParkWaiter[]>();

  /** @param log where a waiter that throws is logged */
  constructor(log: Logger) {
    this.#log = log;
  }

  /** The ids of the calls someone waits for. */
  callIds(): string[] {
    return [...this.#byCall.keys()];
  }

  /** `listener` is told of every call as it parks. Returns the unsubscribe function. */
  listen(listener: (call: ParkedCall) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** `waiter` waits for call `callId`. */
  add(callId: string, waiter: ParkWaiter): void {
    const waiters = this.#byCall.get(callId);
    if (waiters === undefined) this.#byCall.set(callId, [waiter]);
    else waiters.push(waiter);
  }

  /** Call `callId` parked: the listeners and its waiters are told (the waiters dropped). */
  resolve(callId: string, parked: ParkedCall): void {
    for (const listener of this.#listeners) {
      try {
        listener(parked);
      } catch (error) {
        this.#log.error("an onParked listener threw for {callId}: {error}", { callId, error });
      }
    }
    this.#settle(callId, (waiter) => waiter.resolve(parked));
  }

  /** Call `callId` will not park: its waiters get `error`, and are dropped. */
  reject(callId: string, error: TypeError): void {
    this.#settle(callId, (waiter) => waiter.reject(error));
  }

  #settle(callId: string, settle: (waiter: ParkWaiter) => void): void {
    const waiters = this.#byCall.get(callId);
    if (waiters === undefined) return;
    this.#byCall.delete(callId);
    for (const waiter of waiters) {
      try {
        settle(waiter);
      } catch (error) {
        this.#log.error("a park waiter threw for {callId}: {error}", { callId, error });
      }
    }
  }
}
