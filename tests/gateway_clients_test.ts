/**
 * Clients are principals: with `[serve.tokens.NAME]`, each client of a
 * `spillway serve --http` process has a token of its own, and a session
 * answers only the client whose token opened it. Any other client's token
 * gets exactly the answer of an id that never existed (404), on POST, GET
 * and DELETE, so session ids cannot be probed; the owner's session goes on.
 * Each client's calls run on its own upstream process (what one holds,
 * another never sees), stopped once its last session has ended.
 */

import assert from "node:assert/strict";
import type { Client } from "../src/service/sdk.ts";
import { INITIALIZE_REQUEST, textOf } from "./gateway_fixtures.ts";
import { isAlive } from "./_process_probe.ts";
import { clientOf, endSession, spawnClientsServe, TOKENS } from "./_clients.ts";

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

/** The pid of the upstream process answering `client`'s calls. */
async function upstreamPid(client: Client): Promise<number> {
  return Number(textOf(await client.callTool({ name: "pid", arguments: {} })));
}

/** Resolves once `pid` is gone; fails after 20 s. */
async function gone(pid: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} still runs`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test("serve --http: each client has its own upstream process, stopped with its last session", async () => {
  await using serve = await spawnClientsServe();
  const url = serve.url as URL;
  const [alice, alice2, bob] = [
    await clientOf(url, "alice"),
    await clientOf(url, "alice"),
    await clientOf(url, "bob"),
  ];
  const [a, a2, b] = [await upstreamPid(alice), await upstreamPid(alice2), await upstreamPid(bob)];
  assert.equal(a, a2, "a client's sessions share its upstream process");
  assert.notEqual(a, b, "another client's calls run in another process");
  // Its sessions share what the process holds.
  const held = alice.callTool({ name: "hold", arguments: { key: "secret-of-alice" } });
  await alice2.callTool({ name: "until_held", arguments: { key: "secret-of-alice" } });
  await alice.callTool({ name: "release", arguments: { key: "secret-of-alice" } });
  await held;
  await endSession(alice);
  assert.ok(isAlive(a), "alice has a session left: her process runs");
  await endSession(alice2);
  await gone(a);
  assert.ok(isAlive(b), "bob's process lives on");
  assert.equal(await upstreamPid(bob), b);
  // alice's next session starts a new process of her own.
  const again = await clientOf(url, "alice");
  const a3 = await upstreamPid(again);
  assert.ok(a3 !== a && a3 !== b);
  await endSession(again);
  await endSession(bob);
});
