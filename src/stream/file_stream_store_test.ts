import assert from "node:assert/strict";
import { join } from "node:path";
import type { FileHandle } from "../platform/file_handle.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import type { StreamEvent } from "./events.ts";
import { FileStreamStore, type FileStreamStoreOptions } from "./file_stream_store.ts";
import { readEventLog } from "./_event_log_file.ts";
import { defineStreamStoreContract, SAMPLE_EVENTS } from "../testing/stream_store_contract.ts";

defineStreamStoreContract("FileStreamStore", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway_stream_" });
  let fail = false;
  const sync = (file: FileHandle) => {
    if (!fail) return file.syncData();
    fail = false;
    return Promise.reject(new Error("Input/output error (os error 5)"));
  };
  return {
    store: new FileStreamStore(join(dir, "conversations"), { sync }),
    cleanup: () => Deno.remove(dir, { recursive: true }),
    failNextFlush: () => {
      fail = true;
    },
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

/** A `truncate` that fails with EROFS while `failing()` says so. */
function truncateUnless(failing: () => boolean) {
  return (file: FileHandle, size: number): Promise<void> =>
    failing()
      ? Promise.reject(new Error("Read-only file system (os error 30)"))
      : file.truncate(size);
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

Deno.test("FileStreamStore flush() failure cuts the log back to its last durable size and syncs that cut", async () => {
  const calls: string[] = [];
  let failSync = false;
  await withStore(async (store, root) => {
    const path = join(root, "c1", "events.jsonl");
    const stream = await store.open("c1");
    await stream.append(SAMPLE_EVENTS.slice(0, 2));
    await stream.flush();
    await stream.append(SAMPLE_EVENTS.slice(2));
    calls.length = 0;
    failSync = true;
    const error = await rejectsStoreFailed(
      stream.flush(),
      /^could not flush .*c1.events\.jsonl: Input\/output error \(os error 5\)$/,
    );
    assert.ok(error.cause instanceof Error);
    assert.equal(error.details.conversation, "c1");
    const durableBytes = encoder.encode(lines(SAMPLE_EVENTS.slice(0, 2))).length;
    // The failed sync, the cut to the durable size, and the sync of that cut.
    assert.deepEqual(calls, ["sync", `truncate ${durableBytes}`, "sync"]);
    assert.equal(await Deno.readTextFile(path), lines(SAMPLE_EVENTS.slice(0, 2)));
    await stream.close();
  }, {
    sync: (file) => {
      calls.push("sync");
      if (!failSync) return file.syncData();
      failSync = false; // only the batch's sync fails; the cut's succeeds
      return Promise.reject(new Error("Input/output error (os error 5)"));
    },
    truncate: (file, size) => {
      calls.push(`truncate ${size}`);
      return file.truncate(size);
    },
  });
});

Deno.test("FileStreamStore: when the cut of a failed flush fails too, no handle writes, loads stop at the durable end, and reopening retries the cut", async () => {
  let failSync = false;
  let failTruncate = false;
  await withStore(async (store, root) => {
    const path = join(root, "c1", "events.jsonl");
    const stream = await store.open("c1");
    const other = await store.open("c1");
    await stream.append([SAMPLE_EVENTS[0]!]);
    await stream.flush();
    await stream.append(SAMPLE_EVENTS.slice(1, 4));
    failSync = true;
    failTruncate = true;
    const durableBytes = encoder.encode(lines([SAMPLE_EVENTS[0]!])).length;
    const error = await rejectsStoreFailed(
      stream.flush(),
      new RegExp(
        "^could not flush .*events\\.jsonl: Input/output error \\(os error 5\\); cutting off the " +
          "events appended since the last flush failed too \\(Read-only file system \\(os error " +
          `30\\)\\): the file must be cut back to ${durableBytes} bytes before it is used again$`,
      ),
    );
    assert.equal(error.details.cutTo, durableBytes);
    // The batch is still in the file, but in no load.
    assert.ok((await Deno.stat(path)).size > durableBytes);
    assert.deepEqual((await stream.load()).events, [SAMPLE_EVENTS[0]]);
    assert.deepEqual((await other.load()).events, [SAMPLE_EVENTS[0]]);
    for (const handle of [stream, other]) {
      await rejectsStoreFailed(
        handle.append([SAMPLE_EVENTS[4]!]),
        /^cannot append to .*: a flush failed and the events appended since the last one could not be cut off \(Read-only file system \(os error 30\)\), so the file holds events that are not part of the conversation; reopening it retries the cut$/,
      );
    }
    await stream.close();
    await other.close();
    // Still failing: the conversation does not open.
    await rejectsStoreFailed(
      store.open("c1"),
      /^could not open .*: a flush failed .* and cutting the file back to \d+ bytes failed again \(Read-only file system/,
    );
    failSync = false;
    failTruncate = false;
    const again = await store.open("c1");
    assert.equal(await Deno.readTextFile(path), lines([SAMPLE_EVENTS[0]!]));
    await again.append([SAMPLE_EVENTS[4]!]);
    await again.flush();
    assert.deepEqual(await again.load(), {
      events: [SAMPLE_EVENTS[0], SAMPLE_EVENTS[4]],
      warnings: [],
    });
    await again.close();
  }, {
    sync: (file) =>
      failSync ? Promise.reject(new Error("Input/output error (os error 5)")) : file.syncData(),
    truncate: truncateUnless(() => failTruncate),
  });
});

Deno.test("FileStreamStore: an append whose partial write cannot be cut off stops every handle until a reopen cuts it", async () => {
  let failWrite = false;
  let failTruncate = false;
  await withStore(async (store, root) => {
    const path = join(root, "c1", "events.jsonl");
    const stream = await store.open("c1");
    await stream.append([SAMPLE_EVENTS[0]!]);
    await stream.flush();
    failWrite = true;
    failTruncate = true;
    await rejectsStoreFailed(stream.append(SAMPLE_EVENTS.slice(1, 3)), /No space left on device/);
    await rejectsStoreFailed(
      stream.append([SAMPLE_EVENTS[3]!]),
      /a failed append could not be cut off \(Read-only file system \(os error 30\)\)/,
    );
    assert.deepEqual(await stream.load(), { events: [SAMPLE_EVENTS[0]], warnings: [] });
    await stream.close();
    failWrite = false;
    failTruncate = false;
    const again = await store.open("c1");
    assert.equal(await Deno.readTextFile(path), lines([SAMPLE_EVENTS[0]!]));
    await again.close();
  }, {
    write: async (file, bytes) => {
      if (!failWrite) return await file.write(bytes);
      await file.write(bytes.subarray(0, 10));
      throw new Error("No space left on device (os error 28)");
    },
    truncate: truncateUnless(() => failTruncate),
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
