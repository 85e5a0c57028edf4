/**
 * Faults around `spillway serve`, with real processes and SDK clients: a
 * SIGTERM while calls run, a client that goes away mid-call, an upstream
 * that crashes or answers garbage, a call parked for a long time, a
 * 100 MB result. Each call ends with a response that was recorded before it
 * was delivered, the conversation stays readable, and no upstream process
 * outlives the gateway.
 */

import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "../src/service/sdk.ts";
import type { StreamEvent } from "../src/stream/events.ts";
import { scriptedPrompter } from "../src/testing/scripted_prompter.ts";
import { spawnHttpServe, startHttpGateway, textOf, upstreamConfig } from "./gateway_fixtures.ts";
import { join } from "./_paths.ts";
import { isAlive } from "./_process_probe.ts";

const TOKEN = "fault-test-token";

/** An SDK client of `url` with the test token. */
async function connect(url: URL): Promise<Client> {
  const client = new Client({ name: "fault-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  return client;
}

/** Every conversation under `workspace`, by id. */
async function conversations(workspace: string): Promise<Map<string, StreamEvent[]>> {
  const dir = join(workspace, "conversations");
  const found = new Map<string, StreamEvent[]>();
  for await (const entry of Deno.readDir(dir)) {
    const text = await Deno.readTextFile(join(dir, entry.name, "events.jsonl"));
    found.set(entry.name, text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l)));
  }
  return found;
}

/**
 * The events of the log at `path`, once it holds `count` complete lines
 * (a file-system watch of `root`, which contains it, maybe not yet created).
 */
async function eventsOnceRecorded(
  root: string,
  path: string,
  count: number,
): Promise<Record<string, unknown>[]> {
  using watcher = Deno.watchFs(root);
  const read = async () => {
    const text = await Deno.readTextFile(path).catch(() => "");
    const lines = text.split("\n");
    lines.pop(); // the part after the last newline: empty, or a line still being written
    return lines.length >= count ? lines.map((line) => JSON.parse(line)) : undefined;
  };
  let events = await read();
  if (events !== undefined) return events;
  for await (const _ of watcher) {
    events = await read();
    if (events !== undefined) return events;
  }
  throw new Error(`the watch of ${path} ended`);
}

Deno.test("SIGTERM: running calls are cancelled and recorded, spillway exits 0, no upstream survives", async () => {
  await using serve = await spawnHttpServe([], { env: { SPILLWAY_SERVE_TOKEN: TOKEN } });
  const url = serve.url as URL;
  const [caller, watcher] = [await connect(url), await connect(url)];
  const pid = Number(textOf(await watcher.callTool({ name: "pid", arguments: {} })));
  const held = caller.callTool({ name: "hold", arguments: { key: "t" } });
  await watcher.callTool({ name: "until_held", arguments: { key: "t" } });
  serve.child.kill("SIGTERM");
  const result = await held;
  assert.deepEqual([textOf(result), result.isError], [
    "This tool call was cancelled: spillway serve is shutting down (terminated (SIGTERM)).",
    true,
  ]);
  assert.equal((await serve.child.status).code, 0);
  await serve.stderr.ended;
  assert.match(
    serve.stderr.text,
    /^spillway serve: terminated \(SIGTERM\): finishing the calls in flight, then exiting$/m,
  );
  assert.ok(!isAlive(pid), `upstream ${pid} survived`);
  const recorded = [...(await conversations(serve.workspace)).values()].flat();
  const holdRequest = recorded.find((e) => e.type === "tool_call_request" && e.name === "hold");
  assert.ok(holdRequest?.type === "tool_call_request");
  const holdResponse = recorded.find((e) =>
    e.type === "tool_call_response" && e.id === holdRequest.id
  );
  assert.ok(holdResponse?.type === "tool_call_response");
  assert.deepEqual([holdResponse.content, holdResponse.is_error], [textOf(result), true]);
  await Promise.allSettled([caller.close(), watcher.close()]);
});

Deno.test("a client that ends its session mid-call cancels its upstream call; the cancellation is recorded", async () => {
  await using gw = await startHttpGateway();
  const caller = await gw.client();
  const [session] = gw.gateway.sessions;
  assert.ok(session !== undefined);
  const held = caller.callTool({ name: "hold", arguments: { key: "d" } }).catch((e) => e);
  const watcher = await gw.client();
  await watcher.callTool({ name: "until_held", arguments: { key: "d" } });
  await (caller.transport as StreamableHTTPClientTransport).terminateSession();
  await caller.close();
  await held;
  const cancelled = await watcher.callTool({ name: "was_cancelled", arguments: { key: "d" } });
  assert.equal(textOf(cancelled), "true", "the upstream was told to cancel");
  // Recorded once the session wound down, after the client left: wait for the file.
  const dir = join(gw.workspace, "conversations", session.conversationId);
  const events = await eventsOnceRecorded(gw.workspace, join(dir, "events.jsonl"), 2);
  assert.deepEqual(events.map((e) => [e.type, e.name ?? e.content]), [
    ["session_start", undefined],
    ["tool_call_request", "hold"],
    [
      "tool_call_response",
      "This tool call was cancelled: the client disconnected (its session ended).",
    ],
  ]);
});

Deno.test("an upstream that crashes mid-call fails that call only; the next call restarts it", async () => {
  await using gw = await startHttpGateway();
  const client = await gw.client();
  const before = textOf(await client.callTool({ name: "pid", arguments: {} }));
  const crashed = await client.callTool({ name: "crash", arguments: {} });
  assert.equal(crashed.isError, true);
  assert.match(textOf(crashed), /upstream server mcp\.conf exited \(code 3\) during the call/);
  const after = textOf(await client.callTool({ name: "pid", arguments: {} }));
  assert.notEqual(after, before, "a new upstream process");
  const events = await gw.events();
  const responses = events.flatMap((e) => e.type === "tool_call_response" ? [e.content] : []);
  assert.deepEqual(responses, [before, textOf(crashed), after], "recorded as delivered");
});

Deno.test("a malformed or unreadable upstream reply fails that call only, recorded as delivered", async () => {
  const server = new URL("./fixtures/upstream/scripted_server.ts", import.meta.url).pathname;
  await using gw = await startHttpGateway({
    config: `[providers.mcp.flaky]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ${JSON.stringify(["run", "--quiet", server, "--quiet"])}
`,
  });
  const client = await gw.client();
  const results = [];
  for (const name of ["malformed", "garbage", "echo"]) {
    results.push(await client.callTool({ name, arguments: { text: "fine" } }));
  }
  assert.deepEqual(results.map((r) => r.isError ?? false), [true, true, false]);
  assert.match(textOf(results[0]), /mcp\.flaky.*malformed/);
  assert.equal(textOf(results[2]), "fine", "the gateway and the upstream keep serving");
  const events = await gw.events();
  const responses = events.flatMap((e) => e.type === "tool_call_response" ? [e.content] : []);
  assert.deepEqual(responses, results.map(textOf));
});

Deno.test("a call parked for a person keeps its client's request alive with progress", async () => {
  const progressed = Promise.withResolvers<void>();
  const asked: string[] = [];
  await using gw = await startHttpGateway({
    config: upstreamConfig(`[conversation.tools.test_simple_text]\nresult = "ask"\n`),
    gateway: {
      parkProgressIntervalMs: 5,
      prompter: scriptedPrompter({
        // The person answers once the client has been kept waiting a while.
        ask: async (call) => {
          asked.push(call.name);
          await progressed.promise;
          return { kind: "deliver" };
        },
      }),
    },
  });
  const client = await gw.client();
  const messages: string[] = [];
  const result = await client.callTool(
    { name: "test_simple_text", arguments: {} },
    {
      resetTimeoutOnProgress: true,
      onprogress: (update) => {
        messages.push(update.message ?? "");
        if (messages.length === 3) progressed.resolve();
      },
    },
  );
  assert.equal(textOf(result), "This is a simple text response for testing.");
  assert.deepEqual(asked, ["test_simple_text"]);
  assert.ok(messages.length >= 3);
  assert.deepEqual(
    [...new Set(messages)],
    ["the result is waiting to be recorded (review or sibling calls)"],
  );
});

Deno.test("a 100 MB upstream result (one 100 MB line) passes: capped, recorded as delivered", async () => {
  await using gw = await startHttpGateway();
  const client = await gw.client();
  const result = await client.callTool({ name: "big", arguments: { bytes: 100 * 1024 * 1024 } });
  const text = textOf(result);
  assert.ok(text.endsWith("\n... [truncated, 100.0 MB → 256.0 KB]"), text.slice(-60));
  const events = await gw.events();
  const response = events.find((e) => e.type === "tool_call_response");
  assert.ok(response?.type === "tool_call_response");
  assert.equal(response.content, text);
});
