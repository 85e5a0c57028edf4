/**
 * The parking lot's queue of acknowledged calls, handed their results a
 * slice at a time ({@linkcode DELIVERY_SLICE}), each slice a macrotask
 * after the one before.
 *
 * @module
 */

import { setImmediate } from "node:timers";

/**
 * How many acknowledged calls get their result at once; the next slice goes
 * a macrotask later. A commit acknowledges its whole batch at once, and each
 * caller's result then takes several promise hops through the SDK (its
 * validation, the response, the client's validation): handed over all
 * together, every hop runs for the whole batch before the next hop runs for
 * any, and what one hop leaves for the next is alive for all of them at
 * once. A slice's results reach their callers before the next slice goes.
 */
export const DELIVERY_SLICE = 64;

/** Acknowledged calls waiting for their slice, oldest first. */
export class DeliverySlices<T> {
  readonly #handOver: (item: T) => void;
  /** The queue; delivered entries are cleared, so that it holds no call it handed over. */
  #queue: (T | undefined)[] = [];
  #next = 0;

  /** @param handOver gives one acknowledged call its result */
  constructor(handOver: (item: T) => void) {
    this.#handOver = handOver;
  }

  /** Queues `item`; the first of a batch starts the slices, a microtask later. */
  push(item: T): void {
    this.#queue.push(item);
    if (this.#queue.length === 1) queueMicrotask(this.#slice);
  }

  /** Hands the next {@linkcode DELIVERY_SLICE} queued items over. */
  readonly #slice = (): void => {
    const queue = this.#queue;
    const end = Math.min(queue.length, this.#next + DELIVERY_SLICE);
    while (this.#next < end) {
      const item = queue[this.#next];
      // Let the delivered call go: the queue may outlive many slices.
      queue[this.#next++] = undefined;
      if (item !== undefined) this.#handOver(item);
    }
    if (this.#next < queue.length) {
      setImmediate(this.#slice);
      return;
    }
    this.#queue = [];
    this.#next = 0;
  };
}
