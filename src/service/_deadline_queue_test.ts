import assert from "node:assert/strict";
import { DeadlineQueue } from "./_deadline_queue.ts";

Deno.test("DeadlineQueue expires its deadlines in order on one timer, and not the cancelled ones", async () => {
  const queue = new DeadlineQueue(5);
  const expired: number[] = [];
  const last = Promise.withResolvers<void>();
  const deadlines = Array.from({ length: 5 }, (_, i) =>
    queue.add(() => {
      expired.push(i);
      if (i === 4) last.resolve();
    }));
  deadlines[1]?.cancel();
  deadlines[3]?.cancel();
  deadlines[3]?.cancel();
  await last.promise;
  assert.deepEqual(expired, [0, 2, 4]);
});

Deno.test("DeadlineQueue clears its timer when every deadline is cancelled (nothing left running)", () => {
  const queue = new DeadlineQueue(60_000);
  const deadlines = Array.from({ length: 3 }, () => queue.add(() => assert.fail("expired")));
  for (const deadline of deadlines) deadline.cancel();
  // The test sanitizer fails this test if the queue's timer were still set.
});

Deno.test("DeadlineQueue under one slow deadline: thousands of quick ones cancelled never expire, the slow one does", async () => {
  const queue = new DeadlineQueue(20);
  const slow = Promise.withResolvers<void>();
  queue.add(slow.resolve);
  for (let i = 0; i < 10_000; i++) queue.add(() => assert.fail("cancelled")).cancel();
  await slow.promise;
});
