/**
 * Clients are principals: with `[serve.tokens.NAME]`, each client of a
 * `spillway serve --http` process has a token of its own, and a session
 * answers only the client whose token opened it. Any other client's token
 * gets exactly the answer of an id that never existed (404), on POST, GET
 * and DELETE, so session ids cannot be probed; the owner's session goes on.
 */

import assert from "node:assert/strict";
import { INITIALIZE_REQUEST } from "./gateway_fixtures.ts";
import { clientOf, spawnClientsServe, TOKENS } from "./_clients.ts";

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
};

/** A raw request with `client`'s token (and `session`'s id), its status and body. */
async function send(
  url: URL,
  method: "POST" | "GET" | "DELETE",
  token: string,
  session: string,
): Promise<{ status: number; body: string }> {
  const response = await fetch(url, {
    method,
    headers: { ...HEADERS, authorization: `Bearer ${token}`, "mcp-session-id": session },
    ...(method === "POST"
      ? { body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list", params: {} }) }
      : {}),
  });
  return { status: response.status, body: await response.text() };
}

Deno.test("serve --http: another client's token gets the 404 of an unknown id for a session (POST, GET, DELETE)", async () => {
  await using serve = await spawnClientsServe();
  const url = serve.url as URL;
  const opened = await fetch(url, {
    method: "POST",
    headers: { ...HEADERS, authorization: `Bearer ${TOKENS.alice}` },
    body: JSON.stringify(INITIALIZE_REQUEST),
  });
  await opened.body?.cancel();
  assert.equal(opened.status, 200);
  const id = opened.headers.get("mcp-session-id");
  assert.ok(id !== null);
  const unknown = crypto.randomUUID();
  for (const method of ["POST", "GET", "DELETE"] as const) {
    for (const other of [TOKENS.bob, TOKENS.default]) {
      const refused = await send(url, method, other, id);
      const never = await send(url, method, other, unknown);
      assert.equal(refused.status, 404, `${method} with another client's token`);
      assert.deepEqual(refused, never, `${method}: the same answer as for an id that never was`);
    }
  }
  // The owner's session is untouched: it lists tools, then ends it.
  const listed = await send(url, "POST", TOKENS.alice, id);
  assert.equal(listed.status, 200, listed.body);
  assert.match(listed.body, /"tools":\[/);
  const ended = await send(url, "DELETE", TOKENS.alice, id);
  assert.equal(ended.status, 200);
});

Deno.test("serve --http: each client's token opens its own sessions, and a wrong one is 401", async () => {
  await using serve = await spawnClientsServe();
  const url = serve.url as URL;
  for (const client of ["default", "alice", "bob"] as const) {
    const sdk = await clientOf(url, client);
    const { tools } = await sdk.listTools();
    assert.ok(tools.some((tool) => tool.name === "test_simple_text"), client);
    await sdk.close();
  }
  const wrong = await fetch(url, {
    method: "POST",
    headers: { ...HEADERS, authorization: `Bearer ${TOKENS.alice}x` },
    body: JSON.stringify(INITIALIZE_REQUEST),
  });
  assert.equal(wrong.status, 401);
  await wrong.body?.cancel();
});
