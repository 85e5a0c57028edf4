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

import { requireTimeoutMs } from "./tool_timeout.ts";

/**
 * A timer and an abort signal joined: dispose it (`using`) to clear the timer.
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
  readonly #timer: ReturnType<typeof setTimeout>;
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
    this.signal = signal === undefined ? controller.signal : AbortSignal.any([
      signal,
      controller.signal,
    ]);
    this.#timer = setTimeout(() => {
      this.#expired = true;
      controller.abort(new DOMException(`deadline of ${timeoutMs} ms passed`, "TimeoutError"));
    }, timeoutMs);
  }

  /** Whether the deadline passed (rather than the caller aborting first). */
  get expired(): boolean {
    return this.#expired;
  }

  /** Clears the timer. Idempotent. */
  [Symbol.dispose](): void {
    clearTimeout(this.#timer);
  }
}
