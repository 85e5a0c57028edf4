/**
 * A deadline for one piece of work, as an abort signal: the signal the work
 * runs under aborts when the caller's signal does or when the time is up,
 * and afterwards {@linkcode CallDeadline.expired} tells the two apart. The
 * builtin and upstream sources run each call under one (the local source's
 * process runner keeps its own, which also collects the output so far). It
 * runs on a {@linkcode TimerClock}: the real one unless the source was given
 * another (a test's simulated clock).
 *
 * @module
 */

import { type Deadline, deadlineQueue } from "./_deadline_queue.ts";
import { SYSTEM_CLOCK, type TimerClock } from "./timer_clock.ts";
import { requireTimeoutMs } from "./tool_timeout.ts";

/** Options of {@linkcode CallDeadline}. */
export interface CallDeadlineOptions {
  /** The clock the deadline runs on. Default: {@linkcode SYSTEM_CLOCK}. */
  readonly clock?: TimerClock;
}

/**
 * A deadline and an abort signal joined: dispose it (`using`) to drop the deadline.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SimulatedClock } from "xstate";
 * import { CallDeadline } from "./call_deadline.ts";
 * const caller = new AbortController();
 * {
 *   using deadline = new CallDeadline(caller.signal, 60_000);
 *   caller.abort("stop");
 *   assert.equal(deadline.signal.aborted, true);
 *   assert.equal(deadline.expired, false);
 * }
 * const clock = new SimulatedClock();
 * using short = new CallDeadline(undefined, 1_000, { clock });
 * clock.increment(999);
 * assert.equal(short.expired, false);
 * clock.increment(1);
 * assert.equal(short.expired, true);
 * ```
 */
export class CallDeadline implements Disposable {
  /** The limit, in ms. */
  readonly timeoutMs: number;
  readonly #deadline: Deadline;
  readonly #caller: AbortSignal | undefined;
  /** Made when {@linkcode signal} is first read: work that never reads it costs none. */
  #controller: AbortController | undefined;
  /** Set once the caller aborted or the time was up: why the deadline ended. */
  #ended: { readonly reason: unknown } | undefined;
  /** Rejects the pending {@linkcode race}, when the deadline ends first. */
  #lose: ((reason: unknown) => void) | undefined;
  #expired = false;

  /**
   * Starts the timer.
   *
   * @param signal the caller's signal, if any
   * @param timeoutMs the limit in ms (see `requireTimeoutMs`)
   * @param options the clock
   * @throws {RangeError} when `timeoutMs` is not a valid limit
   */
  constructor(
    signal: AbortSignal | undefined,
    timeoutMs: number,
    options?: CallDeadlineOptions,
  ) {
    requireTimeoutMs("timeoutMs", timeoutMs);
    this.timeoutMs = timeoutMs;
    // One listener on the caller's signal (this object, no closure), removed
    // on dispose, rather than AbortSignal.any: under Deno that allocates weak
    // references per source and dependent, a measurable share of a
    // 1,000-call batch.
    this.#caller = signal;
    if (signal?.aborted) this.#end(signal.reason);
    else signal?.addEventListener("abort", this, { once: true });
    // One timer for all deadlines of this length: a timer per call cost more than the call.
    this.#deadline = deadlineQueue(timeoutMs, options?.clock ?? SYSTEM_CLOCK).add(() => {
      this.#expired = true;
      this.#end(new DOMException(`deadline of ${timeoutMs} ms passed`, "TimeoutError"));
    });
  }

  /** Aborts when the caller's signal aborts or when the deadline passes. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#ended !== undefined) this.#controller.abort(this.#ended.reason);
    }
    return this.#controller.signal;
  }

  /** Whether the deadline passed (rather than the caller aborting first). */
  get expired(): boolean {
    return this.#expired;
  }

  /**
   * Settles like `work`, or rejects with the reason {@linkcode signal}
   * aborts with (the caller's, or a `TimeoutError`) as soon as the deadline
   * ends, whichever comes first: `raceAbort(work, deadline.signal)`, for
   * work that may ignore its signal. The deadline ends its signal itself, so
   * it needs no listener on it (nor the signal at all, when the work does
   * not read it). One race at a time.
   */
  race<T>(work: Promise<T>): Promise<T> {
    const ended = this.#ended;
    if (ended !== undefined) {
      work.catch(() => {});
      return Promise.reject(ended.reason);
    }
    return new Promise<T>((resolve, reject) => {
      this.#lose = (reason) => {
        work.catch(() => {});
        reject(reason);
      };
      work.then(resolve, reject);
    });
  }

  /** The caller's signal aborted (this object is its listener). */
  handleEvent(): void {
    this.#end(this.#caller?.reason);
  }

  /** Drops the deadline and stops following the caller's signal. Idempotent. */
  [Symbol.dispose](): void {
    this.#deadline.cancel();
    this.#caller?.removeEventListener("abort", this);
  }

  #end(reason: unknown): void {
    if (this.#ended !== undefined) return;
    this.#ended = { reason };
    this.#controller?.abort(reason);
    const lose = this.#lose;
    this.#lose = undefined;
    lose?.(reason);
  }
}
