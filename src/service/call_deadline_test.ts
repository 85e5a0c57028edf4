import assert from "node:assert/strict";
import { SimulatedClock } from "xstate";
import { CallDeadline } from "./call_deadline.ts";

const NEVER = new Promise<never>(() => {});

Deno.test("CallDeadline.race() settles like the work while the deadline holds", async () => {
  using deadline = new CallDeadline(new AbortController().signal, 60_000);
  assert.equal(await deadline.race(Promise.resolve("done")), "done");
  await assert.rejects(deadline.race(Promise.reject(new Error("broke"))), /broke/);
});

Deno.test("CallDeadline.race() gives up on work that ignores its signal when the caller aborts", async () => {
  const caller = new AbortController();
  using deadline = new CallDeadline(caller.signal, 60_000);
  const racing = deadline.race(NEVER);
  caller.abort("stop");
  await assert.rejects(racing, (reason) => reason === "stop");
  assert.equal(deadline.expired, false);
  assert.equal(deadline.signal.aborted, true, "a signal first read after the end is aborted");
  assert.equal(deadline.signal.reason, "stop");
});

Deno.test("CallDeadline.race() gives up with a TimeoutError once the time is up", async () => {
  const clock = new SimulatedClock();
  using deadline = new CallDeadline(undefined, 250, { clock });
  const signal = deadline.signal;
  const racing = deadline.race(NEVER);
  clock.increment(249);
  assert.equal(signal.aborted, false);
  clock.increment(1);
  await assert.rejects(
    racing,
    (reason) =>
      reason instanceof DOMException && reason.name === "TimeoutError" &&
      reason.message === "deadline of 250 ms passed",
  );
  assert.equal(deadline.expired, true);
  assert.equal(signal.aborted, true, "a signal read before the end aborts with it");
});

Deno.test("CallDeadline runs on its own clock: simulated time does not move the real one, nor the reverse", () => {
  const clock = new SimulatedClock();
  using simulated = new CallDeadline(undefined, 100, { clock });
  using real = new CallDeadline(undefined, 100);
  clock.increment(100);
  assert.equal(simulated.expired, true);
  assert.equal(real.expired, false);
});

Deno.test("CallDeadline.race() on a caller that already aborted rejects at once", async () => {
  const caller = new AbortController();
  caller.abort("gone");
  using deadline = new CallDeadline(caller.signal, 60_000);
  await assert.rejects(deadline.race(Promise.resolve("late")), (reason) => reason === "gone");
});

Deno.test("CallDeadline stops following its caller once disposed, and its time no longer runs", () => {
  const clock = new SimulatedClock();
  const caller = new AbortController();
  let signal: AbortSignal;
  {
    using deadline = new CallDeadline(caller.signal, 60_000, { clock });
    signal = deadline.signal;
  }
  caller.abort("after");
  clock.increment(60_000);
  assert.equal(signal.aborted, false);
});
