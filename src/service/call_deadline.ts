/**
 * A deadline for one piece of work, as an abort signal: the signal the work
 * runs under aborts when the caller's signal does or when the time is up,
 * and afterwards {@linkcode CallDeadline.expired} tells the two apart. The
 * builtin and upstream sources run each call under one (the local source's
 * process runner keeps its own, which also collects the output so far), and
 * the upstream source bounds its start-up handshake with one.
 *
 * @module
 */

import { type Deadline, deadlineQueue } from "./_deadline_queue.ts";
import { requireTimeoutMs } from "./tool_timeout.ts";

/**
 * A deadline and an abort signal joined: dispose it (`using`) to drop the deadline.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CallDeadline } from "./call_deadline.ts";
 * const caller = new AbortController();
 * {
 *   using deadline = new CallDeadline(caller.signal, 60_000);
 *   caller.abort("stop");
 *   assert.equal(deadline.signal.aborted, true);
 *   assert.equal(deadline.expired, false);
 * }
 * using short = new CallDeadline(undefined, 1);
 * await new Promise((resolve) => short.signal.addEventListener("abort", resolve));
 * assert.equal(short.expired, true);
 * ```
 */
export class CallDeadline implements Disposable {
  /** Aborts when the caller's signal aborts or when the deadline passes. */
  readonly signal: AbortSignal;
  /** The limit, in ms. */
  readonly timeoutMs: number;
  readonly #deadline: Deadline;
  readonly #caller: AbortSignal | undefined;
  readonly #follow: () => void;
  #expired = false;

  /**
   * Starts the timer.
   *
   * @param signal the caller's signal, if any
   * @param timeoutMs the limit in ms (see `requireTimeoutMs`)
   * @throws {RangeError} when `timeoutMs` is not a valid limit
   */
  constructor(signal: AbortSignal | undefined, timeoutMs: number) {
    requireTimeoutMs("timeoutMs", timeoutMs);
    const controller = new AbortController();
    this.timeoutMs = timeoutMs;
    this.signal = controller.signal;
    // One listener on the caller's signal, removed on dispose, rather than
    // AbortSignal.any: under Deno that allocates weak references per source
    // and dependent, a measurable share of a 1,000-call batch.
    this.#caller = signal;
    this.#follow = () => controller.abort(signal?.reason);
    if (signal?.aborted) controller.abort(signal.reason);
    else signal?.addEventListener("abort", this.#follow, { once: true });
    // One timer for all deadlines of this length: a timer per call cost more than the call.
    this.#deadline = deadlineQueue(timeoutMs).add(() => {
      this.#expired = true;
      controller.abort(new DOMException(`deadline of ${timeoutMs} ms passed`, "TimeoutError"));
    });
  }

  /** Whether the deadline passed (rather than the caller aborting first). */
  get expired(): boolean {
    return this.#expired;
  }

  /** Drops the deadline and stops following the caller's signal. Idempotent. */
  [Symbol.dispose](): void {
    this.#deadline.cancel();
    this.#caller?.removeEventListener("abort", this.#follow);
  }
}
