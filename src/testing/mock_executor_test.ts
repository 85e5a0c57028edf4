import assert from "node:assert/strict";
import { defineExecutorContract } from "./executor_contract.ts";
import { MockExecutor } from "./mock_executor.ts";

defineExecutorContract("MockExecutor", () =>
  Promise.resolve({
    executor: new MockExecutor({
      echo: (call) => String(call.arguments.text),
      reviewed: (call) => String(call.arguments.text),
      broken: () => {
        throw new Error("boom");
      },
      lost: { lost: "source gone" },
      hang: () => new Promise<never>(() => {}),
    }),
    close: () => Promise.resolve(),
  }));

const never = new AbortController().signal;
const call = (name: string, id = "c1") => ({ id, name, arguments: {} });

Deno.test("MockExecutor delivers its own result on deliver and checks it against the record", async () => {
  const executor = new MockExecutor({ t: "raw" });
  const handle = executor.start(call("t"), { signal: never });
  assert.deepEqual(await handle.outcome, {
    kind: "executed",
    response: { id: "c1", content: "raw", isError: false },
  });
  assert.deepEqual(
    await handle.release({ kind: "deliver" }, { id: "c1", content: "raw", isError: false }),
    {
      kind: "delivered",
      response: { id: "c1", content: "raw", isError: false },
    },
  );
});

Deno.test("MockExecutor delivers the acknowledged content on replace, never its own", async () => {
  const executor = new MockExecutor({ t: "raw" });
  const handle = executor.start(call("t"), { signal: never });
  assert.equal((await handle.outcome).kind, "executed");
  const recorded = { id: "c1", content: "cut", isError: false };
  assert.deepEqual(
    await handle.release({ kind: "replace", content: "cut", isError: false }, recorded),
    {
      kind: "delivered",
      response: recorded,
    },
  );
});

Deno.test("MockExecutor reports a mismatch when what it delivers differs from the record", async () => {
  const executor = new MockExecutor({ t: "raw" });
  const handle = executor.start(call("t"), { signal: never });
  await handle.outcome;
  assert.deepEqual(
    await handle.release({ kind: "deliver" }, { id: "c1", content: "cut", isError: false }),
    {
      kind: "mismatch",
      expected: "cut",
      received: "raw",
    },
  );
});

Deno.test("MockExecutor fails a call on fail and on a second release", async () => {
  const executor = new MockExecutor({ t: "raw" });
  const handle = executor.start(call("t"), { signal: never });
  await handle.outcome;
  assert.deepEqual(await handle.release({ kind: "fail", message: "not recorded" }, undefined), {
    kind: "failed",
    message: "not recorded",
  });
  assert.deepEqual(await handle.release({ kind: "deliver" }, undefined), {
    kind: "failed",
    message: "call c1 was already released",
  });
  assert.equal(executor.releases.length, 2);
});

Deno.test("MockExecutor simulates loss, failure, unknown tools and throwing tools", async () => {
  const executor = new MockExecutor({
    lost: { lost: "exited" },
    failed: { failed: "transport closed" },
    throws: () => {
      throw new Error("boom");
    },
  });
  const outcome = (name: string) => executor.start(call(name), { signal: never }).outcome;
  assert.deepEqual(await outcome("lost"), { kind: "lost", reason: "exited" });
  assert.deepEqual(await outcome("failed"), { kind: "failed", reason: "transport closed" });
  assert.deepEqual(await outcome("nope"), { kind: "failed", reason: "tool nope is not available" });
  assert.deepEqual(await outcome("throws"), {
    kind: "executed",
    response: { id: "c1", content: "boom", isError: true },
  });
  assert.equal(executor.has("lost"), true);
  assert.equal(executor.has("nope"), false);
});

Deno.test("MockExecutor ends a delayed call as cancelled when its signal aborts, clearing its timer", async () => {
  const executor = new MockExecutor({ slow: { result: "late", delayMs: 60_000 } });
  const controller = new AbortController();
  const handle = executor.start(call("slow"), { signal: controller.signal });
  controller.abort(new Error("Ctrl-C"));
  assert.deepEqual(await handle.outcome, { kind: "cancelled", reason: "Ctrl-C" });
  // A cancelled call was never parked: only a replacement can be delivered.
  assert.deepEqual(await handle.release({ kind: "deliver" }, undefined), {
    kind: "failed",
    message: "call c1 has no parked result to deliver",
  });
});
