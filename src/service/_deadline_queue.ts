/**
 * Private helper: the deadlines of one length, in the order they were set,
 * on one timer. Every call of a builtin or upstream tool runs under a
 * deadline, and a timer per call cost more than the call itself here
 * (setting and clearing a timer takes about 5 µs under Deno; a bare
 * in-memory MCP round trip about 17 µs). Deadlines of the same length
 * expire in the order they were set, so a queue and one timer for its head
 * serve them all. The queues are per clock ({@linkcode TimerClock}): the
 * real one is shared by every source in the process, and a test's
 * simulated clock has queues of its own.
 *
 * @module
 */

import type { TimerClock } from "./timer_clock.ts";

interface Entry {
  readonly at: number;
  /** Absent once expired or cancelled. */
  expire: (() => void) | undefined;
}

/** One deadline of a {@linkcode DeadlineQueue}. */
export interface Deadline {
  /** Drops the deadline: it will not expire. Idempotent. */
  cancel(): void;
}

/** Deadlines of `ms` milliseconds, on one timer of `clock`. */
export class DeadlineQueue {
  readonly #ms: number;
  readonly #clock: TimerClock;
  #entries: Entry[] = [];
  /** Entries before this index are done (expired or cancelled). */
  #head = 0;
  #live = 0;
  #cancelled = 0;
  /** Whether the clock's timer for the head entry is set, and its id. */
  #timerSet = false;
  #timer: unknown;

  /**
   * @param ms the length of every deadline of this queue
   * @param clock whose timer and time the queue uses
   */
  constructor(ms: number, clock: TimerClock) {
    this.#ms = ms;
    this.#clock = clock;
  }

  /** Calls `expire` once `ms` have passed, unless the deadline is cancelled first. */
  add(expire: () => void): Deadline {
    const entry: Entry = { at: this.#clock.now() + this.#ms, expire };
    this.#entries.push(entry);
    this.#live += 1;
    if (!this.#timerSet) {
      this.#timer = this.#clock.setTimeout(this.#fire, this.#ms);
      this.#timerSet = true;
    }
    return { cancel: () => this.#cancel(entry) };
  }

  #cancel(entry: Entry): void {
    if (entry.expire === undefined) return;
    entry.expire = undefined;
    this.#live -= 1;
    this.#cancelled += 1;
    if (this.#live === 0) {
      this.#reset();
      return;
    }
    // Cancelled entries wait for the timer to pass them; drop them in bulk
    // when they outnumber the live ones, so a steady stream of quick calls
    // under one slow call keeps the queue small (amortized O(1) per call).
    if (this.#cancelled > 1024 && this.#cancelled > this.#live) {
      this.#entries = this.#entries.slice(this.#head).filter((e) => e.expire !== undefined);
      this.#head = 0;
      this.#cancelled = 0;
    }
  }

  readonly #fire = (): void => {
    this.#timerSet = false;
    const now = this.#clock.now();
    while (this.#head < this.#entries.length) {
      const entry = this.#entries[this.#head] as Entry;
      const expire = entry.expire;
      if (expire !== undefined && entry.at > now) break;
      this.#head += 1;
      if (expire === undefined) {
        this.#cancelled -= 1;
        continue;
      }
      entry.expire = undefined;
      this.#live -= 1;
      expire();
    }
    if (this.#live === 0) this.#reset();
    else {
      const next = this.#entries[this.#head] as Entry;
      this.#timer = this.#clock.setTimeout(this.#fire, Math.max(0, next.at - now));
      this.#timerSet = true;
    }
  };

  #reset(): void {
    if (this.#timerSet) this.#clock.clearTimeout(this.#timer);
    this.#timerSet = false;
    this.#timer = undefined;
    this.#entries = [];
    this.#head = 0;
    this.#cancelled = 0;
  }
}

/** The queues of each clock, by length. */
const clocks = new WeakMap<TimerClock, Map<number, DeadlineQueue>>();
/** The clock asked for last and its queues: almost every deadline is on the real clock. */
let lastClock: TimerClock | undefined;
let lastQueues: Map<number, DeadlineQueue> | undefined;

/** The queue of `clock`'s deadlines of `ms` milliseconds, shared by everyone on that clock. */
export function deadlineQueue(ms: number, clock: TimerClock): DeadlineQueue {
  let queues = clock === lastClock ? lastQueues : clocks.get(clock);
  if (queues === undefined) {
    queues = new Map();
    clocks.set(clock, queues);
  }
  lastClock = clock;
  lastQueues = queues;
  let queue = queues.get(ms);
  if (queue === undefined) {
    queue = new DeadlineQueue(ms, clock);
    queues.set(ms, queue);
  }
  return queue;
}
