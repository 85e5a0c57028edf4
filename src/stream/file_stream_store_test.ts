import assert from "node:assert/strict";
import { join } from "node:path";
import { SpillwayError } from "../errors/spillway_error.ts";
import type { StreamEvent } from "./events.ts";
import { FileStreamStore, type FileStreamStoreOptions } from "./file_stream_store.ts";
import { readEventLog } from "./_event_log_file.ts";
import { defineStreamStoreContract, SAMPLE_EVENTS } from "./stream_store_contract.ts";

defineStreamStoreContract("FileStreamStore", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway_stream_" });
  return {
    store: new FileStreamStore(join(dir, "conversations")),
    cleanup: () => Deno.remove(dir, { recursive: true }),
  };
});

const encoder = new TextEncoder();
const lines = (events: readonly StreamEvent[]) =>
  events.map((e) => JSON.stringify(e) + "\n").join("");

/** Runs `body` with a store in a fresh temp dir, removed afterwards. */
async function withStore(
  body: (store: FileStreamStore, root: string) => Promise<void>,
  options: FileStreamStoreOptions = {},
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "spillway_stream_" });
  try {
    const root = join(dir, "conversations");
    await body(new FileStreamStore(root, options), root);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Writes a log by hand (as a crash or an editor would leave it). */
async function writeLog(root: string, id: string, bytes: string | Uint8Array): Promise<string> {
  await Deno.mkdir(join(root, id), { recursive: true });
  const path = join(root, id, "events.jsonl");
  await Deno.writeFile(path, typeof bytes === "string" ? encoder.encode(bytes) : bytes);
  return path;
}

async function rejectsStoreFailed(
  promise: Promise<unknown>,
  ...patterns: RegExp[]
): Promise<SpillwayError> {
  let caught: SpillwayError | undefined;
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof SpillwayError, String(error));
    assert.equal(error.code, "store_failed");
    for (const pattern of patterns) assert.match(error.message, pattern);
    caught = error;
    return true;
  });
  return caught!;
}

Deno.test("FileStreamStore writes one JSON line per event to <root>/<id>/events.jsonl", async () => {
  await withStore(async (store, root) => {
    const stream = await store.open("c1");
    await stream.append(SAMPLE_EVENTS);
    await stream.flush();
    await stream.close();
    const path = join(root, "c1", "events.jsonl");
    assert.equal(stream.location, path);
    assert.equal(await Deno.readTextFile(path), lines(SAMPLE_EVENTS));
  });
});

Deno.test("FileStreamStore load() skips a torn last line with a warning naming its size and line", async () => {
  await withStore(async (store, root) => {
    // "é" is two bytes; the tear splits the second one off.
    const fragment = encoder.encode('{"type":"tool_call_response","id":"c","content":"é').slice(
      0,
      -1,
    );
    const path = await writeLog(
      root,
      "c1",
      new Uint8Array([...encoder.encode(lines(SAMPLE_EVENTS.slice(0, 2))), ...fragment]),
    );
    const expected = {
      events: SAMPLE_EVENTS.slice(0, 2),
      warnings: [`events.jsonl: skipped a torn last line (${fragment.length} bytes) at line 3`],
    };
    // Read as found, and through open(), which cuts the fragment off and reports it.
    assert.deepEqual(await readEventLog(path), expected);
    const stream = await store.open("c1");
    assert.deepEqual(await stream.load(), expected);
    await stream.close();
  });
});

Deno.test("FileStreamStore load() skips an unparseable last line even when it ends in a newline", async () => {
  await withStore(async (_store, root) => {
    await writeLog(root, "c1", lines([SAMPLE_EVENTS[0]!]) + '{"type":"turn_end",\n');
    // Read without open(), which would already cut the line off.
    const loaded = await readEventLog(join(root, "c1", "events.jsonl"));
    assert.deepEqual(loaded.events, [SAMPLE_EVENTS[0]]);
    assert.deepEqual(loaded.warnings, [
      "events.jsonl: skipped a torn last line (19 bytes) at line 2",
    ]);
  });
});

Deno.test("FileStreamStore load() of a log holding only a fragment finds no events", async () => {
  await withStore(async (store, root) => {
    await writeLog(root, "c1", "\u0000\u0000\u0000");
    const stream = await store.open("c1");
    const loaded = await stream.load();
    await stream.close();
    assert.deepEqual(loaded, {
      events: [],
      warnings: ["events.jsonl: skipped a torn last line (3 bytes) at line 1"],
    });
  });
});

Deno.test("FileStreamStore open() cuts a torn tail off so the next append yields a readable file", async () => {
  await withStore(async (store, root) => {
    const path = await writeLog(
      root,
      "c1",
      lines(SAMPLE_EVENTS.slice(0, 3)) + '{"type":"chat_resp',
    );
    const stream = await store.open("c1");
    await stream.append(SAMPLE_EVENTS.slice(3, 5));
    await stream.flush();
    const loaded = await stream.load();
    await stream.close();
    assert.deepEqual(loaded.events, SAMPLE_EVENTS.slice(0, 5));
    assert.deepEqual(loaded.warnings, [
      "events.jsonl: skipped a torn last line (18 bytes) at line 4",
    ]);
    // The bytes themselves are clean: a fresh store sees no warning.
    assert.equal(await Deno.readTextFile(path), lines(SAMPLE_EVENTS.slice(0, 5)));
    const fresh = await new FileStreamStore(root).open("c1");
    assert.deepEqual(await fresh.load(), { events: SAMPLE_EVENTS.slice(0, 5), warnings: [] });
    await fresh.close();
  });
});

Deno.test("FileStreamStore open() also cuts off a complete but unparseable last line", async () => {
  await withStore(async (store, root) => {
    const path = await writeLog(root, "c1", lines([SAMPLE_EVENTS[0]!]) + "\u0000\u0000\n");
    const stream = await store.open("c1");
    await stream.append([SAMPLE_EVENTS[1]!]);
    await stream.close();
    assert.equal(await Deno.readTextFile(path), lines(SAMPLE_EVENTS.slice(0, 2)));
  });
});

Deno.test("FileStreamStore open() finds a torn line longer than its tail read", async () => {
  await withStore(async (store, root) => {
    const long = JSON.stringify({
      type: "tool_call_response",
      id: "x",
      content: "y".repeat(200_000),
    });
    const torn = long.slice(0, 150_000);
    const path = await writeLog(root, "c1", lines([SAMPLE_EVENTS[0]!]) + long + "\n" + torn);
    const stream = await store.open("c1");
    const loaded = await stream.load();
    await stream.close();
    assert.equal(loaded.events.length, 2);
    assert.deepEqual(loaded.warnings, [
      "events.jsonl: skipped a torn last line (150000 bytes) at line 3",
    ]);
    assert.equal(
      (await Deno.stat(path)).size,
      encoder.encode(lines([SAMPLE_EVENTS[0]!]) + long + "\n").length,
    );
  });
});

Deno.test("FileStreamStore load() fails on a corrupt line before the last one, naming file and line", async () => {
  await withStore(async (store, root) => {
    for (const bad of ["{not json", "42", '"text"', "null", "[]", '{"no_type":1}', ""]) {
      const path = await writeLog(
        root,
        "c1",
        lines([SAMPLE_EVENTS[0]!]) + bad + "\n" + lines([SAMPLE_EVENTS[1]!]),
      );
      const stream = await store.open("c1");
      const error = await rejectsStoreFailed(stream.load(), /line 2 is not a valid event/);
      await stream.close();
      assert.ok(error.message.startsWith(path), error.message);
      assert.deepEqual(error.details, { path, line: 2 });
      assert.ok(error.cause instanceof SyntaxError, `${bad}: ${String(error.cause)}`);
    }
  });
});

Deno.test("FileStreamStore flush() makes exactly one sync call, and append() none", async () => {
  let syncs = 0;
  await withStore(async (store) => {
    const stream = await store.open("c1");
    for (const event of SAMPLE_EVENTS) await stream.append([event]);
    assert.equal(syncs, 0);
    await stream.flush();
    assert.equal(syncs, 1);
    const responses: StreamEvent[] = Array.from({ length: 1000 }, (_, i) => ({
      type: "tool_call_response",
      id: `call_${i}`,
      content: "x".repeat(100),
      is_error: false,
    }));
    await stream.append(responses);
    await stream.flush();
    assert.equal(syncs, 2);
    assert.equal((await stream.load()).events.length, SAMPLE_EVENTS.length + 1000);
    await stream.close();
  }, {
    sync: (file) => {
      syncs += 1;
      return file.syncData();
    },
  });
});

Deno.test("FileStreamStore append() keeps writing when write() takes fewer bytes than offered", async () => {
  let calls = 0;
  await withStore(async (store) => {
    const stream = await store.open("c1");
    await stream.append(SAMPLE_EVENTS);
    await stream.flush();
    assert.deepEqual((await stream.load()).events, SAMPLE_EVENTS);
    await stream.close();
  }, {
    write: (file, bytes) => {
      calls += 1;
      return file.write(bytes.subarray(0, 7));
    },
  });
  assert.ok(calls > 100, `only ${calls} write calls`);
});

Deno.test("FileStreamStore append() that fails midway cuts the partial batch off and stays usable", async () => {
  let failNext = false;
  await withStore(async (store) => {
    const stream = await store.open("c1");
    await stream.append(SAMPLE_EVENTS.slice(0, 2));
    failNext = true;
    const error = await rejectsStoreFailed(
      stream.append(SAMPLE_EVENTS.slice(2)),
      /^could not append to .*events\.jsonl: No space left on device/,
    );
    assert.ok(error.cause instanceof Error && error.cause.message.includes("os error 28"));
    assert.deepEqual(await stream.load(), { events: SAMPLE_EVENTS.slice(0, 2), warnings: [] });
    await stream.append(SAMPLE_EVENTS.slice(2));
    await stream.flush();
    assert.deepEqual((await stream.load()).events, SAMPLE_EVENTS);
    await stream.close();
  }, {
    write: async (file, bytes) => {
      if (!failNext) return await file.write(bytes);
      failNext = false;
      await file.write(bytes.subarray(0, 10)); // a partial line reaches the file first
      throw new Error("No space left on device (os error 28)");
    },
  });
});

Deno.test("FileStreamStore flush() failure is store_failed, and the stream then refuses writes", async () => {
  let failSync = true;
  await withStore(async (store) => {
    const stream = await store.open("c1");
    await stream.append([SAMPLE_EVENTS[0]!]);
    const error = await rejectsStoreFailed(
      stream.flush(),
      /^could not flush .*c1.events\.jsonl: Input\/output error/,
    );
    assert.ok(error.cause instanceof Error);
    assert.equal(error.details.conversation, "c1");
    await rejectsStoreFailed(stream.append([SAMPLE_EVENTS[1]!]), /a flush failed .*reopen/);
    await rejectsStoreFailed(stream.flush(), /a flush failed/);
    assert.deepEqual((await stream.load()).events, [SAMPLE_EVENTS[0]]);
    await stream.close();
    failSync = false;
    const again = await store.open("c1");
    await again.append([SAMPLE_EVENTS[1]!]);
    await again.flush();
    assert.deepEqual((await again.load()).events, SAMPLE_EVENTS.slice(0, 2));
    await again.close();
  }, {
    sync: (file) =>
      failSync ? Promise.reject(new Error("Input/output error (os error 5)")) : file.syncData(),
  });
});

Deno.test("FileStreamStore list() orders by last write, then id, and skips what is not a conversation", async () => {
  await withStore(async (store, root) => {
    assert.deepEqual(await store.list(), []); // root does not exist yet
    for (const id of ["b", "a", "c", "d"]) await (await store.open(id)).close();
    const at = (id: string, seconds: number) =>
      Deno.utime(join(root, id, "events.jsonl"), seconds, seconds);
    await at("a", 3000);
    await at("b", 1000);
    await at("c", 2000);
    await at("d", 2000);
    await Deno.mkdir(join(root, "empty"));
    await Deno.writeTextFile(join(root, "stray.txt"), "");
    await writeLog(root, "bad name", lines([SAMPLE_EVENTS[0]!]));
    assert.deepEqual(await store.list(), ["b", "c", "d", "a"]);
  });
});

Deno.test("FileStreamStore open() reports an unusable root as store_failed naming the path", async () => {
  await withStore(async (store, root) => {
    await Deno.writeTextFile(root, "not a folder");
    await rejectsStoreFailed(
      store.open("c1"),
      /^could not open .*conversations.c1.events\.jsonl: /,
    );
    await rejectsStoreFailed(store.list(), /^could not list .*conversations: /);
  });
});

Deno.test("FileStreamStore round-trips a 100 MB content string", async () => {
  await withStore(async (store) => {
    const content = "spillway-".repeat(100 * 1024 * 1024 / 9);
    const stream = await store.open("huge");
    await stream.append([{ type: "tool_call_response", id: "call_1", content, is_error: false }]);
    await stream.flush();
    const { events } = await stream.load();
    await stream.close();
    const event = events[0];
    assert.ok(event?.type === "tool_call_response" && event.content === content);
  });
});
