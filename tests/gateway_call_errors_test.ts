/**
 * What a real `spillway serve --http` process answers when a call goes
 * wrong: a `tools/call` whose params are not what the method takes gets
 * `-32602` and one line saying what is wrong (nothing recorded); a call the
 * client cancels (`notifications/cancelled`) is recorded in the client's
 * words, and its POST stream ends; a configured `cancellation_response`
 * still wins. The disconnection and shutdown wordings are asserted in
 * gateway_faults_test.ts and gateway_stdio_test.ts.
 */

import assert from "node:assert/strict";
import { join } from "./_paths.ts";
import { postInitialize, type ServeProcess, spawnHttpServe } from "./gateway_fixtures.ts";

const TOKEN = "call-errors-test-token-0123456789";
const AUTH = { authorization: `Bearer ${TOKEN}` };

/** A session of `serve`, initialized by hand: raw POSTs with its headers. */
async function rawSession(url: URL): Promise<(body: unknown) => Promise<Response>> {
  const init = await postInitialize(url, AUTH);
  assert.equal(init.status, 200);
  await init.body?.cancel();
  const headers = {
    ...AUTH,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-session-id": init.headers.get("mcp-session-id") as string,
    "mcp-protocol-version": "2025-06-18",
  };
  const post = (body: unknown) =>
    fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  const initialized = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  assert.equal(initialized.status, 202);
  await initialized.body?.cancel();
  return post;
}

/** The JSON-RPC messages of an SSE body, once the stream ends. */
async function sseMessages(response: Response): Promise<unknown[]> {
  const text = await response.text();
  return text.split("\n").filter((line) => line.startsWith("data: ")).map((line) =>
    JSON.parse(line.slice(6))
  );
}

/** What `serve` recorded for its call of `hold`: the response's text and whether it is an error. */
async function recordedHold(serve: ServeProcess): Promise<[unknown, unknown]> {
  const dir = join(serve.workspace, "conversations");
  for (const entry of Deno.readDirSync(dir)) {
    const text = await Deno.readTextFile(join(dir, entry.name, "events.jsonl"));
    const events = text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
    const hold = events.find((e) => e.type === "tool_call_request" && e.name === "hold");
    if (hold === undefined) continue;
    const response = events.find((e) => e.type === "tool_call_response" && e.id === hold.id);
    return [response?.content, response?.is_error];
  }
  throw new Error("no call of hold was recorded");
}

Deno.test("serve --http: tools/call params that are not what the method takes get -32602 in one line, and nothing is recorded", async () => {
  await using serve = await spawnHttpServe([], { env: { SPILLWAY_SERVE_TOKEN: TOKEN } });
  const post = await rawSession(serve.url as URL);
  const cases: [unknown, string][] = [
    [
      { name: "echo", arguments: "x" },
      "tools/call: params.arguments must be a JSON object of the tool's arguments, got a string",
    ],
    [
      { name: "echo", arguments: [1] },
      "tools/call: params.arguments must be a JSON object of the tool's arguments, got an array",
    ],
    [
      { arguments: {} },
      "tools/call: params.name must be the tool's name (a non-empty string), got nothing",
    ],
    [
      { name: "", arguments: {} },
      "tools/call: params.name must be the tool's name (a non-empty string), got an empty string",
    ],
    [
      undefined,
      "tools/call: params must be an object with the tool's name and arguments, got nothing",
    ],
  ];
  let id = 10;
  for (const [params, message] of cases) {
    const response = await post({ jsonrpc: "2.0", id: ++id, method: "tools/call", params });
    assert.equal(response.status, 200);
    assert.deepEqual(await sseMessages(response), [
      { jsonrpc: "2.0", id, error: { code: -32602, message } },
    ]);
  }
  // A method nobody serves is still -32601.
  const unknown = await post({ jsonrpc: "2.0", id: 99, method: "tools/nothing" });
  assert.deepEqual(await sseMessages(unknown), [
    { jsonrpc: "2.0", id: 99, error: { code: -32601, message: "Method not found" } },
  ]);
  // None of them was a call of a tool: no conversation was started.
  const conversations = join(serve.workspace, "conversations");
  const started = await Deno.stat(conversations).then(() => [...Deno.readDirSync(conversations)])
    .catch(() => []);
  assert.deepEqual(started, []);
});

/**
 * Starts `hold` (key `key`) on a new session, waits (on another: the calls
 * of one session are one phase at a time) until it runs, then cancels it
 * with `reason`.
 */
async function holdThenCancel(
  url: URL,
  key: string,
  reason: string | undefined,
): Promise<Response> {
  const post = await rawSession(url);
  const watch = await rawSession(url);
  const held = await post({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "hold", arguments: { key } },
  });
  assert.equal(held.status, 200);
  const until = await watch({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "until_held", arguments: { key } },
  });
  await sseMessages(until);
  const cancel = await post({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: reason === undefined ? { requestId: 1 } : { requestId: 1, reason },
  });
  assert.equal(cancel.status, 202);
  await cancel.body?.cancel();
  return held;
}

Deno.test("serve --http: a call the client cancels is recorded in the client's words, and its POST stream ends without a response", async () => {
  await using serve = await spawnHttpServe([], { env: { SPILLWAY_SERVE_TOKEN: TOKEN } });
  const held = await holdThenCancel(serve.url as URL, "c", "Request timed out");
  // The stream ends (before, it stayed open): no response for a cancelled request, as MCP says.
  assert.deepEqual(await sseMessages(held), []);
  // Its cancellation was recorded before the stream ended.
  assert.deepEqual(await recordedHold(serve), [
    'This tool call was cancelled by the client: "Request timed out".',
    true,
  ]);
});

Deno.test("serve --http: a configured cancellation_response wins over the cause's words", async () => {
  await using serve = await spawnHttpServe(
    ["--cfg", 'conversation.tools.hold.cancellation_response="Stopped by you."'],
    { env: { SPILLWAY_SERVE_TOKEN: TOKEN } },
  );
  const held = await holdThenCancel(serve.url as URL, "w", undefined);
  assert.deepEqual(await sseMessages(held), []);
  assert.deepEqual(await recordedHold(serve), ["Stopped by you.", true]);
});
