/**
 * The contract every stream backend passes: what the Host relies
 * on when it records, flushes and reloads a conversation. Each backend's test
 * file calls {@linkcode defineStreamStoreContract} with a factory.
 *
 * @module
 */

import assert from "node:assert/strict";
import { SpillwayError } from "../errors/spillway_error.ts";
import type { StreamEvent } from "../stream/events.ts";
import type { ConversationStream, StreamStore } from "../stream/stream_store.ts";

/** A fresh, empty store and how to remove it. */
export interface StoreUnderTest {
  /** The store, with no conversations yet. */
  readonly store: StreamStore;
  /** Removes whatever the store left behind (temp folders). */
  cleanup(): Promise<void>;
  /**
   * Makes the next `flush()` fail as the storage itself would (one fsync
   * error; later ones work), through the store's own injectable dependency,
   * not a hook on its streams.
   */
  failNextFlush(): void;
}

/** One event of every type, with text that is hard to store: unicode, controls, lone surrogates. */
export const SAMPLE_EVENTS: readonly StreamEvent[] = [
  {
    type: "turn_start",
    turn_id: "t1",
    prompt: "résumé 日本語 👩‍💻\u0301",
    at: "2026-11-29T22:56:00.000Z",
  },
  { type: "chat_request", turn_id: "t1", cycle: 0, bytes: 1234, at: "2026-11-29T22:56:00.100Z" },
  {
    type: "chat_response",
    turn_id: "t1",
    cycle: 0,
    text: "line 1\nline 2\r\n\ttab",
    at: "2026-11-29T22:56:01.000Z",
  },
  {
    type: "tool_call_request",
    id: "call_1",
    name: "read_file",
    arguments: { path: "/tmp/a b.txt", nested: { list: [1, 2.5, null, true], empty: {} } },
  },
  {
    type: "tool_call_response",
    id: "call_1",
    content:
      "NUL\u0000 ESC\u001b[31mred\u001b[0m lone:\ud800 and \udfff pair:\ud83d\ude00 \u2028\u2029",
    is_error: false,
  },
  { type: "tool_call_response", id: "call_2", content: "", is_error: true },
  {
    type: "compaction",
    strategy: "strip-responses",
    over_bytes: 1024,
    response_ids: ["call_1"],
    at: "2026-11-30T00:00:00Z",
  },
  { type: "compaction", strategy: "strip-responses", response_ids: [], at: "2026-11-30T00:00:01Z" },
  {
    type: "turn_end",
    turn_id: "t1",
    status: "failed",
    reason: "prompt is too long",
    at: "2026-11-29T22:57:00Z",
  },
  { type: "turn_end", turn_id: "t2", status: "finished", at: "2026-11-29T22:58:00Z" },
];

const INVALID_IDS = [
  "",
  ".",
  "..",
  "../x",
  "a/b",
  "a\\b",
  "a b",
  "x..y",
  "é",
  "a\u0000",
  "x".repeat(256),
];

/**
 * Registers the stream store contract as `Deno.test` cases named `"<name>: …"`.
 *
 * @param name the backend's name, e.g. `"FileStreamStore"`
 * @param makeStore creates a fresh, empty store per test, and its cleanup
 */
export function defineStreamStoreContract(
  name: string,
  makeStore: () => Promise<StoreUnderTest>,
): void {
  const test = (
    what: string,
    body: (
      store: StreamStore,
      opened: ConversationStream[],
      failNextFlush: () => void,
    ) => Promise<void>,
  ) =>
    Deno.test(`${name}: ${what}`, async () => {
      const { store, cleanup, failNextFlush } = await makeStore();
      const opened: ConversationStream[] = [];
      const tracking: StreamStore = {
        open: async (id) => {
          const stream = await store.open(id);
          opened.push(stream);
          return stream;
        },
        list: () => store.list(),
      };
      try {
        await body(tracking, opened, failNextFlush);
      } finally {
        for (const stream of opened) await stream.close();
        await cleanup();
      }
    });

  test("open() of a new conversation loads no events and no warnings", async (store) => {
    const stream = await store.open("c1");
    assert.equal(stream.id, "c1");
    assert.equal(typeof stream.location, "string");
    assert.ok(stream.location.includes("c1"), stream.location);
    assert.deepEqual(await stream.load(), { events: [], warnings: [] });
  });

  test("append() + flush() + load() keeps order and every field, unicode and lone surrogates included", async (store) => {
    const stream = await store.open("c1");
    await stream.append(SAMPLE_EVENTS.slice(0, 4));
    await stream.append(SAMPLE_EVENTS.slice(4));
    await stream.flush();
    const loaded = await stream.load();
    assert.deepEqual(loaded.events, SAMPLE_EVENTS);
    assert.deepEqual(loaded.warnings, []);
  });

  test("a reopened handle loads what was flushed", async (store) => {
    const first = await store.open("c1");
    await first.append(SAMPLE_EVENTS);
    await first.flush();
    await first.close();
    const again = await store.open("c1");
    assert.deepEqual((await again.load()).events, SAMPLE_EVENTS);
  });

  test("appended events are visible to load() before flush()", async (store) => {
    const stream = await store.open("c1");
    await stream.append([SAMPLE_EVENTS[0]!]);
    await stream.flush();
    await stream.append([SAMPLE_EVENTS[1]!, SAMPLE_EVENTS[2]!]);
    assert.deepEqual((await stream.load()).events, SAMPLE_EVENTS.slice(0, 3));
  });

  test("a reopened conversation appends after its existing events", async (store) => {
    const first = await store.open("c1");
    await first.append(SAMPLE_EVENTS.slice(0, 3));
    await first.flush();
    await first.close();
    const second = await store.open("c1");
    await second.append(SAMPLE_EVENTS.slice(3));
    await second.flush();
    assert.deepEqual((await second.load()).events, SAMPLE_EVENTS);
  });

  test("append([]) and flush() with nothing appended change nothing", async (store) => {
    const stream = await store.open("c1");
    await stream.append([]);
    await stream.flush();
    await stream.append([SAMPLE_EVENTS[0]!]);
    await stream.append([]);
    await stream.flush();
    await stream.flush();
    assert.deepEqual((await stream.load()).events, [SAMPLE_EVENTS[0]]);
  });

  test("conversations are separate", async (store) => {
    const a = await store.open("a");
    const b = await store.open("b");
    await a.append([SAMPLE_EVENTS[0]!]);
    await b.append([SAMPLE_EVENTS[1]!]);
    await a.flush();
    await b.flush();
    assert.deepEqual((await a.load()).events, [SAMPLE_EVENTS[0]]);
    assert.deepEqual((await b.load()).events, [SAMPLE_EVENTS[1]]);
  });

  test("two handles of one conversation append whole events in call order", async (store) => {
    const a = await store.open("c1");
    const b = await store.open("c1");
    const big = (id: string, fill: string): StreamEvent => ({
      type: "tool_call_response",
      id,
      content: fill.repeat(1024 * 1024),
      is_error: false,
    });
    await Promise.all([
      a.append([big("x", "x")]),
      b.append([big("y", "y")]),
      a.append([big("z", "z")]),
    ]);
    await Promise.all([a.flush(), b.flush()]);
    const ids = (await a.load()).events.map((
      e,
    ) => (e.type === "tool_call_response" ? e.id : e.type));
    assert.deepEqual(ids, ["x", "y", "z"]);
  });

  test("list() is empty for a new store and shows opened conversations", async (store) => {
    assert.deepEqual(await store.list(), []);
    await store.open("b-2");
    await store.open("a_1.x");
    assert.deepEqual((await store.list()).toSorted(), ["a_1.x", "b-2"]);
    await store.open("a_1.x");
    assert.equal((await store.list()).length, 2);
  });

  test("open() rejects invalid ids with a TypeError quoting the id", async (store) => {
    for (const id of INVALID_IDS) {
      await assert.rejects(() => store.open(id), (error: unknown) => {
        assert.ok(error instanceof TypeError, `${JSON.stringify(id)}: ${String(error)}`);
        assert.match(error.message, /^conversation id .* is invalid/);
        return true;
      });
    }
    assert.deepEqual(await store.list(), []);
  });

  test("a 20 MB content event round-trips", async (store) => {
    const stream = await store.open("big");
    const content = "0123456789abcdé\n".repeat(1_250_000);
    const event: StreamEvent = {
      type: "tool_call_response",
      id: "call_big",
      content,
      is_error: false,
    };
    await stream.append([SAMPLE_EVENTS[0]!, event, SAMPLE_EVENTS[1]!]);
    await stream.flush();
    const { events } = await stream.load();
    assert.equal(events.length, 3);
    const loaded = events[1];
    assert.ok(loaded?.type === "tool_call_response");
    assert.equal(loaded.content.length, content.length);
    assert.ok(loaded.content === content, "content differs");
    assert.deepEqual(events[2], SAMPLE_EVENTS[1]);
  });

  test(
    "a failed flush takes every event appended since the last flush out of the conversation",
    async (store, _opened, failNextFlush) => {
      const stream = await store.open("c1");
      await stream.append(SAMPLE_EVENTS.slice(0, 3));
      await stream.flush();
      await stream.append(SAMPLE_EVENTS.slice(3, 5));
      await stream.append(SAMPLE_EVENTS.slice(5, 7));
      failNextFlush();
      await assertStoreFailed(stream.flush(), /^could not flush /);
      assert.deepEqual((await stream.load()).events, SAMPLE_EVENTS.slice(0, 3));
      await stream.close();
      const again = await store.open("c1");
      assert.deepEqual(await again.load(), { events: SAMPLE_EVENTS.slice(0, 3), warnings: [] });
    },
  );

  test(
    "a failed first flush leaves a new conversation empty",
    async (store, _opened, failNextFlush) => {
      const stream = await store.open("c1");
      await stream.append(SAMPLE_EVENTS);
      failNextFlush();
      await assertStoreFailed(stream.flush(), /^could not flush /);
      await stream.close();
      assert.deepEqual(await (await store.open("c1")).load(), { events: [], warnings: [] });
    },
  );

  test(
    "after a failed flush the stream goes on from the durable events",
    async (store, _opened, failNextFlush) => {
      const stream = await store.open("c1");
      await stream.append([SAMPLE_EVENTS[0]!]);
      await stream.flush();
      await stream.append([SAMPLE_EVENTS[1]!]);
      failNextFlush();
      await assertStoreFailed(stream.flush(), /^could not flush /);
      await stream.append([SAMPLE_EVENTS[2]!]);
      await stream.flush();
      await stream.close();
      const again = await store.open("c1");
      assert.deepEqual(await again.load(), {
        events: [SAMPLE_EVENTS[0], SAMPLE_EVENTS[2]],
        warnings: [],
      });
    },
  );

  test(
    "a failed flush also cuts another handle's unflushed events, and that handle's next flush says so",
    async (store, _opened, failNextFlush) => {
      const a = await store.open("c1");
      const b = await store.open("c1");
      await a.append([SAMPLE_EVENTS[0]!]);
      await a.flush();
      await b.append([SAMPLE_EVENTS[1]!]);
      await a.append([SAMPLE_EVENTS[2]!]);
      failNextFlush();
      await assertStoreFailed(a.flush(), /^could not flush /);
      await assertStoreFailed(b.flush(), /appended through this handle were cut off/);
      assert.deepEqual((await b.load()).events, [SAMPLE_EVENTS[0]]);
      // Told once: the handle works again.
      await b.append([SAMPLE_EVENTS[3]!]);
      await b.flush();
      assert.deepEqual((await a.load()).events, [SAMPLE_EVENTS[0], SAMPLE_EVENTS[3]]);
    },
  );

  test("close() is idempotent; a closed stream refuses append and flush but still loads", async (store) => {
    const stream = await store.open("c1");
    await stream.append([SAMPLE_EVENTS[0]!]);
    await stream.flush();
    await stream.close();
    await stream.close();
    await assertStoreFailed(stream.append([SAMPLE_EVENTS[1]!]), /closed/);
    await assertStoreFailed(stream.flush(), /closed/);
    assert.deepEqual((await stream.load()).events, [SAMPLE_EVENTS[0]]);
  });
}

async function assertStoreFailed(promise: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof SpillwayError, String(error));
    assert.equal(error.code, "store_failed");
    assert.match(error.message, message);
    return true;
  });
}
