import assert from "node:assert/strict";
import type { ExecutionHandle } from "../service/executor.ts";
import { MockExecutor } from "../testing/mock_executor.ts";
import { abandonedMessage, ExecutionLink } from "./execution_link.ts";

const CALL = { id: "call_1", name: "probe", arguments: {} };
const RECORDED = { id: "call_1", content: "fine", isError: false };

Deno.test("ExecutionLink starts its call once and releases it once", async () => {
  const executor = new MockExecutor({ probe: "fine" });
  const link = new ExecutionLink("call_1", { executor });
  const outcome = await link.start(CALL);
  assert.equal(outcome.kind, "executed");
  assert.equal(link.start(CALL), link.start(CALL), "later starts return the first outcome");
  assert.equal(executor.started.length, 1);
  const delivered = link.delivered;
  const first = link.release({ kind: "deliver" }, RECORDED);
  const second = link.release({ kind: "fail", message: "again" }, undefined);
  assert.equal(first, second, "later releases return the first delivery");
  assert.deepEqual(await first, { kind: "delivered", response: RECORDED });
  assert.deepEqual(await delivered, await first, "whoever waits for the delivery gets it");
  assert.equal(executor.releases.length, 1);
});

Deno.test("ExecutionLink holds a release that comes before the call settled until it settles", async () => {
  const parked = Promise.withResolvers<string>();
  const executor = new MockExecutor({ probe: () => parked.promise });
  const link = new ExecutionLink("call_1", { executor });
  const outcome = link.start(CALL);
  const delivery = link.release({ kind: "deliver" }, RECORDED);
  let released = false;
  void delivery.then(() => released = true);
  await Promise.resolve();
  assert.equal(executor.releases.length, 0, "not released before it settled");
  assert.equal(released, false);
  parked.resolve("fine");
  await outcome;
  assert.deepEqual(await delivery, { kind: "delivered", response: RECORDED });
});

Deno.test("ExecutionLink releases a settled call at once: the executor has it before release() returns", async () => {
  const executor = new MockExecutor({ probe: "fine" });
  const link = new ExecutionLink("call_1", { executor });
  await link.start(CALL);
  const delivery = link.release({ kind: "deliver" }, RECORDED);
  assert.equal(
    executor.releases.length,
    1,
    "no promise chain between the release and the executor",
  );
  assert.deepEqual(await delivery, { kind: "delivered", response: RECORDED });
});

Deno.test("ExecutionLink cancels its running call through its own signal", async () => {
  const executor = new MockExecutor({ probe: () => new Promise<never>(() => {}) });
  const link = new ExecutionLink("call_1", { executor });
  const outcome = link.start(CALL);
  link.cancel(new Error("Ctrl-C"));
  assert.equal(link.signal.aborted, true);
  assert.deepEqual(await outcome, { kind: "cancelled", reason: "Ctrl-C" });
});

Deno.test("ExecutionLink abandoned mid-call cancels it and releases it with a failure once it settles", async () => {
  const executor = new MockExecutor({ probe: () => new Promise<never>(() => {}) });
  const link = new ExecutionLink("call_1", { executor });
  const outcome = link.start(CALL);
  link.abandon();
  assert.equal((await outcome).kind, "cancelled");
  assert.deepEqual(await link.delivered, {
    kind: "failed",
    message: abandonedMessage("call_1"),
  });
  assert.deepEqual(executor.releases.map(({ ack }) => ack), [
    { kind: "fail", message: "the call call_1 was abandoned before its result was recorded" },
  ]);
});

Deno.test("ExecutionLink abandoned after its release changes nothing", async () => {
  const executor = new MockExecutor({ probe: "fine" });
  const link = new ExecutionLink("call_1", { executor });
  await link.start(CALL);
  const delivery = await link.release({ kind: "deliver" }, RECORDED);
  link.abandon();
  assert.deepEqual(await link.delivered, delivery);
  assert.equal(link.signal.aborted, false);
  assert.equal(executor.releases.length, 1);
});

Deno.test("ExecutionLink of a call never started delivers what was recorded, or the failure", async () => {
  const executor = new MockExecutor({ probe: "fine" });
  const replaced = { id: "call_1", content: "The user skipped this tool call.", isError: true };
  const skipped = new ExecutionLink("call_1", { executor });
  assert.deepEqual(
    await skipped.release({ kind: "replace", content: replaced.content, isError: true }, replaced),
    { kind: "delivered", response: replaced },
  );
  const failed = new ExecutionLink("call_1", { executor });
  assert.deepEqual(await failed.release({ kind: "fail", message: "not recorded" }, undefined), {
    kind: "failed",
    message: "not recorded",
  });
  assert.equal(executor.started.length, 0);
});

Deno.test("ExecutionLink turns a throwing or rejecting executor into a failed call, never a rejection", async () => {
  const throwing = new ExecutionLink("call_1", {
    executor: {
      has: () => true,
      start: () => {
        throw new Error("executor is closed");
      },
    },
  });
  assert.deepEqual(await throwing.start(CALL), { kind: "failed", reason: "executor is closed" });
  const broken: ExecutionHandle = {
    outcome: Promise.reject(new Error("transport gone")),
    release: () => Promise.reject(new Error("transport gone")),
  };
  const joined = new ExecutionLink("call_1", { handle: broken });
  assert.deepEqual(await joined.start(CALL), { kind: "failed", reason: "transport gone" });
  assert.deepEqual(await joined.release({ kind: "deliver" }, RECORDED), {
    kind: "failed",
    message: "release failed: transport gone",
  });
});

Deno.test("ExecutionLink of a joined call never starts it, and releases the running handle", async () => {
  const executor = new MockExecutor({ probe: "fine" });
  const handle = executor.start(CALL, { signal: new AbortController().signal });
  const link = new ExecutionLink("call_1", { handle });
  assert.equal((await link.start(CALL)).kind, "executed");
  assert.equal(executor.started.length, 1, "started once, by its own client");
  assert.deepEqual(await link.release({ kind: "deliver" }, RECORDED), {
    kind: "delivered",
    response: RECORDED,
  });
});

Deno.test("ExecutionLink of a settled call hands out a fresh signal that its cancel still aborts", async () => {
  const executor = new MockExecutor({ probe: "fine" });
  const link = new ExecutionLink("call_1", { executor });
  const during = link.signal;
  await link.start(CALL);
  // The executor no longer listens: the link let go of the running call's signal.
  const after = link.signal;
  assert.notEqual(after, during);
  assert.equal(after.aborted, false);
  // A result prompt reads the signal after the call settled, and is cancelled through it.
  link.cancel("stop");
  assert.equal(after.aborted, true);
  assert.equal(after.reason, "stop");
  assert.equal(link.signal, after, "an aborted signal is kept");
  assert.equal(during.aborted, false, "the settled call itself is not affected");
});

Deno.test("ExecutionLink of a call cancelled while it ran keeps its aborted signal after it settled", async () => {
  const held = Promise.withResolvers<string>();
  const executor = new MockExecutor({ probe: () => held.promise });
  const link = new ExecutionLink("call_1", { executor });
  const outcome = link.start(CALL);
  const signal = link.signal;
  link.cancel("stop");
  held.resolve("late");
  await outcome;
  assert.equal(link.signal, signal);
  assert.equal(link.signal.aborted, true);
  assert.equal(link.signal.reason, "stop");
});
