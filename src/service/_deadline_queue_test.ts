import assert from "node:assert/strict";
import { SimulatedClock } from "xstate";
import { DeadlineQueue, deadlineQueue } from "./_deadline_queue.ts";
import { SYSTEM_CLOCK, type TimerClock } from "./timer_clock.ts";

/** A simulated clock that counts the timers set on it and how many are pending. */
class CountingClock implements TimerClock {
  readonly #inner = new SimulatedClock();
  readonly #pending = new Set<unknown>();
  set = 0;
  now(): number {
    return this.#inner.now();
  }
  setTimeout(callback: () => void, ms: number): unknown {
    this.set += 1;
    const id = this.#inner.setTimeout(() => {
      this.#pending.delete(id);
      callback();
    }, ms);
    this.#pending.add(id);
    return id;
  }
  clearTimeout(id: unknown): void {
    this.#pending.delete(id);
    this.#inner.clearTimeout(id as number);
  }
  get pending(): number {
    return this.#pending.size;
  }
  increment(ms: number): void {
    this.#inner.increment(ms);
  }
}

Deno.test("DeadlineQueue expires its deadlines in order on one timer, and not the cancelled ones", () => {
  const clock = new CountingClock();
  const queue = new DeadlineQueue(5, clock);
  const expired: number[] = [];
  const deadlines = Array.from({ length: 5 }, (_, i) => queue.add(() => expired.push(i)));
  deadlines[1]?.cancel();
  deadlines[3]?.cancel();
  deadlines[3]?.cancel();
  assert.equal(clock.pending, 1);
  clock.increment(4);
  assert.deepEqual(expired, []);
  clock.increment(1);
  assert.deepEqual(expired, [0, 2, 4]);
  assert.equal(clock.set, 1, "one timer for the five");
  assert.equal(clock.pending, 0);
});

Deno.test("DeadlineQueue sets the next timer for what is left when deadlines were set apart", () => {
  const clock = new CountingClock();
  const queue = new DeadlineQueue(100, clock);
  const expired: string[] = [];
  queue.add(() => expired.push("first"));
  clock.increment(60);
  queue.add(() => expired.push("second"));
  clock.increment(40);
  assert.deepEqual(expired, ["first"]);
  assert.equal(clock.pending, 1);
  clock.increment(59);
  assert.deepEqual(expired, ["first"]);
  clock.increment(1);
  assert.deepEqual(expired, ["first", "second"]);
  assert.equal(clock.pending, 0);
});

Deno.test("DeadlineQueue clears its timer when every deadline is cancelled (nothing left running)", () => {
  const clock = new CountingClock();
  const queue = new DeadlineQueue(60_000, clock);
  const deadlines = Array.from({ length: 3 }, () => queue.add(() => assert.fail("expired")));
  for (const deadline of deadlines) deadline.cancel();
  assert.equal(clock.pending, 0);
  clock.increment(60_000);
});

Deno.test("DeadlineQueue on the real clock clears its timer when every deadline is cancelled", () => {
  const queue = new DeadlineQueue(60_000, SYSTEM_CLOCK);
  const deadlines = Array.from({ length: 3 }, () => queue.add(() => assert.fail("expired")));
  for (const deadline of deadlines) deadline.cancel();
  // The test sanitizer fails this test if the queue's timer were still set.
});

Deno.test("DeadlineQueue under one slow deadline: thousands of quick ones cancelled never expire, the slow one does", () => {
  const clock = new CountingClock();
  const queue = new DeadlineQueue(20, clock);
  let slow = 0;
  queue.add(() => slow++);
  for (let i = 0; i < 10_000; i++) queue.add(() => assert.fail("cancelled")).cancel();
  clock.increment(20);
  assert.equal(slow, 1);
  assert.equal(clock.set, 1);
});

Deno.test("deadlineQueue() shares one queue per clock and length, and none across clocks", () => {
  const a = new CountingClock();
  const b = new CountingClock();
  assert.equal(deadlineQueue(10, a), deadlineQueue(10, a));
  assert.notEqual(deadlineQueue(10, a), deadlineQueue(20, a));
  assert.notEqual(deadlineQueue(10, a), deadlineQueue(10, b));
});
