/**
 * The sessions of a real `spillway serve --http` process are bounded: one
 * that sent nothing for `serve.session_idle_timeout` is closed (its call
 * recorded, its conversation released) and a later request naming it gets
 * 404, so its client initializes anew; past `serve.max_sessions` an
 * `initialize` is answered 503 with `Retry-After` and a message naming the
 * setting, and an `initialize` the transport refuses leaves no session.
 */

import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "../src/service/sdk.ts";
import { join } from "./_paths.ts";
import { postInitialize, spawnHttpServe, textOf } from "./gateway_fixtures.ts";

const TOKEN = "sessions-test-token-0123456789";
const AUTH = { authorization: `Bearer ${TOKEN}` };

async function connect(url: URL): Promise<{ client: Client; sessionId: string }> {
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: AUTH } });
  const client = new Client({ name: "sessions-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, sessionId: transport.sessionId as string };
}

/** A raw `tools/list` POST of session `sessionId`. */
function listTools(url: URL, sessionId: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      ...AUTH,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
  });
}

Deno.test("serve --http: a session idle for session_idle_timeout is closed, then its id gets 404 and the client initializes anew", async () => {
  await using serve = await spawnHttpServe(
    ["-v", "--cfg", "serve.session_idle_timeout=1s"],
    { env: { SPILLWAY_SERVE_TOKEN: TOKEN } },
  );
  const url = serve.url as URL;
  const first = await connect(url);
  const result = await first.client.callTool({ name: "test_simple_text", arguments: {} });
  assert.equal(textOf(result), "This is a simple text response for testing.");
  // Nothing more is sent: the gateway closes the session by itself, and says so with -v.
  await serve.stderr.waitFor(
    new RegExp(`session "?${first.sessionId}"? closed: no request for "?1s"?`),
  );
  const late = await listTools(url, first.sessionId);
  assert.equal(late.status, 404);
  assert.deepEqual(await late.json(), {
    jsonrpc: "2.0",
    error: { code: -32000, message: "unknown or ended session" },
    id: null,
  });
  await first.client.close();
  // The call was recorded before the session closed, and its conversation is complete.
  const conversations = join(serve.workspace, "conversations");
  const ids = [];
  for await (const entry of Deno.readDir(conversations)) ids.push(entry.name);
  assert.equal(ids.length, 1);
  const events = (await Deno.readTextFile(join(conversations, ids[0] as string, "events.jsonl")))
    .trim().split("\n").map((line) => JSON.parse(line).type);
  assert.deepEqual(events, ["session_start", "tool_call_request", "tool_call_response"]);
  // As the transport spec says, the client starts a new session, which works.
  const again = await connect(url);
  assert.notEqual(again.sessionId, first.sessionId);
  assert.equal(
    textOf(await again.client.callTool({ name: "test_simple_text", arguments: {} })),
    "This is a simple text response for testing.",
  );
  await again.client.close();
});

/** The 503 message at max_sessions = 3 and the default idle timeout (exact: people read it). */
const FULL_3 = "spillway serve has 3 sessions open, the most it keeps (serve.max_sessions = 3): " +
  "try again later, when a client has ended its session or one has been idle for 30m " +
  "(serve.session_idle_timeout)";

Deno.test("serve --http: past max_sessions an initialize gets 503 with Retry-After and a message naming the setting", async () => {
  await using serve = await spawnHttpServe(
    ["--cfg", "serve.max_sessions=3"],
    { env: { SPILLWAY_SERVE_TOKEN: TOKEN } },
  );
  const url = serve.url as URL;
  // Initializes the transport refuses (the client takes no event stream) leave no session.
  for (let i = 0; i < 5; i++) {
    const refused = await fetch(url, {
      method: "POST",
      headers: { ...AUTH, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }),
    });
    assert.equal(refused.status, 406);
    await refused.body?.cancel();
  }
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const opened = await postInitialize(url, AUTH);
    assert.equal(opened.status, 200);
    ids.push(opened.headers.get("mcp-session-id") as string);
    await opened.body?.cancel();
  }
  const full = await postInitialize(url, AUTH);
  assert.equal(full.status, 503);
  assert.equal(full.headers.get("retry-after"), "60");
  assert.deepEqual(await full.json(), {
    jsonrpc: "2.0",
    error: { code: -32000, message: FULL_3 },
    id: null,
  });
  // The sessions that are open still work.
  const listed = await listTools(url, ids[0] as string);
  assert.equal(listed.status, 200);
  await listed.body?.cancel();
  // A client that ends its session makes room for another.
  const ended = await fetch(url, {
    method: "DELETE",
    headers: { ...AUTH, "mcp-session-id": ids[1] as string, "mcp-protocol-version": "2025-06-18" },
  });
  assert.equal(ended.status, 200);
  await ended.body?.cancel();
  const gone = await listTools(url, ids[1] as string);
  assert.equal(gone.status, 404);
  await gone.body?.cancel();
  const room = await postInitialize(url, AUTH);
  assert.equal(room.status, 200);
  await room.body?.cancel();
  const fullAgain = await postInitialize(url, AUTH);
  assert.equal(fullAgain.status, 503);
  await fullAgain.body?.cancel();
});
