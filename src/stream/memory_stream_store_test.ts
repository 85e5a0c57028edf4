import assert from "node:assert/strict";
import { SpillwayError } from "../errors/spillway_error.ts";
import { MemoryStreamStore } from "./memory_stream_store.ts";
import { defineStreamStoreContract, SAMPLE_EVENTS } from "../testing/stream_store_contract.ts";

defineStreamStoreContract("MemoryStreamStore", () => {
  const store = new MemoryStreamStore();
  return Promise.resolve({
    store,
    cleanup: () => Promise.resolve(),
    failNextFlush: () => {
      let failed = false;
      store.failFlush = () => !failed && (failed = true);
    },
  });
});

const [e0, e1, e2] = [SAMPLE_EVENTS[0]!, SAMPLE_EVENTS[1]!, SAMPLE_EVENTS[2]!];

function isStoreFailed(pattern: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof SpillwayError, String(error));
    assert.equal(error.code, "store_failed");
    assert.match(error.message, pattern);
    return true;
  };
}

Deno.test("MemoryStreamStore durableEvents() holds only flushed events; flushCount counts flushes", async () => {
  const store = new MemoryStreamStore();
  const stream = await store.open("c1");
  await stream.append([e0]);
  assert.deepEqual(store.durableEvents("c1"), []);
  assert.equal(store.flushCount, 0);
  await stream.flush();
  await stream.append([e1]);
  assert.deepEqual(store.durableEvents("c1"), [e0]);
  assert.deepEqual((await stream.load()).events, [e0, e1]);
  await stream.flush();
  await (await store.open("c2")).flush();
  assert.deepEqual(store.durableEvents("c1"), [e0, e1]);
  assert.equal(store.flushCount, 3);
  assert.throws(() => store.durableEvents("nope"), RangeError);
});

Deno.test("MemoryStreamStore keeps what it was given as JSON, not the caller's objects", async () => {
  const store = new MemoryStreamStore();
  const stream = await store.open("c1");
  const args: Record<string, unknown> = { path: "a" };
  await stream.append([{ type: "tool_call_request", id: "call_1", name: "read", arguments: args }]);
  args.path = "changed";
  const loaded = (await stream.load()).events[0];
  assert.ok(loaded?.type === "tool_call_request");
  assert.deepEqual(loaded.arguments, { path: "a" });
});

Deno.test("MemoryStreamStore crash() drops what was not flushed", async () => {
  const store = new MemoryStreamStore();
  const stream = await store.open("c1");
  await stream.append([e0]);
  await stream.flush();
  await stream.append([e1, e2]);
  store.crash();
  assert.deepEqual((await (await store.open("c1")).load()).events, [e0]);
});

Deno.test("MemoryStreamStore failAppend rejects with store_failed and keeps nothing", async () => {
  let fail = true;
  const store = new MemoryStreamStore({ failAppend: () => fail });
  const stream = await store.open("c1");
  await assert.rejects(
    stream.append([e0]),
    isStoreFailed(/^could not append to memory:c1: injected/),
  );
  assert.deepEqual((await stream.load()).events, []);
  fail = false;
  await stream.append([e1]);
  store.failAppend = true;
  await assert.rejects(stream.append([e2]), isStoreFailed(/injected append failure/));
  await stream.flush();
  assert.deepEqual(store.durableEvents("c1"), [e1]);
});

Deno.test("MemoryStreamStore failFlush rejects, makes nothing durable, and drops what was not flushed", async () => {
  const store = new MemoryStreamStore({ failFlush: true });
  const stream = await store.open("c1");
  await stream.append([e0]);
  await assert.rejects(stream.flush(), isStoreFailed(/^could not flush memory:c1: injected/));
  assert.deepEqual(store.durableEvents("c1"), []);
  assert.equal(store.flushCount, 0);
  assert.deepEqual((await stream.load()).events, []);
  store.failFlush = false;
  await stream.append([e1]);
  await stream.flush();
  assert.deepEqual(store.durableEvents("c1"), [e1]);
});

Deno.test("MemoryStreamStore list() orders by last write, then id", async () => {
  const store = new MemoryStreamStore();
  const b = await store.open("b");
  await store.open("a");
  await store.open("c");
  assert.deepEqual(await store.list(), ["b", "a", "c"]);
  await b.append([e0]);
  assert.deepEqual(await store.list(), ["a", "c", "b"]);
});
