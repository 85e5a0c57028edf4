/**
 * What an upstream server sends outside a call's answer goes only where it
 * belongs, through a real `spillway serve --http` with two clients (two
 * tokens): client A's late log message (its server logs 300 ms after
 * answering) never reaches client B, who is in a call of his own at that
 * moment; a log message of 20 MB, and a progress message over 64 KB, reach
 * their own client cut with the exact marker.
 */

import assert from "node:assert/strict";
import { type Client } from "../src/service/sdk.ts";
import { textOf } from "./gateway_fixtures.ts";
import { clientOf, endSession, spawnClientsServe } from "./_clients.ts";

const UPSTREAM = new URL("./fixtures/gateway/principals_upstream.ts", import.meta.url).pathname;

const CONFIG = `[providers.mcp.p]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ${JSON.stringify(["run", "--quiet", "--allow-env", UPSTREAM])}
`;

interface Logged {
  readonly level: string;
  readonly logger?: string | undefined;
  readonly data: unknown;
}

/** `client`'s SDK client, and the log messages it receives (each also told to `onLog`). */
async function logging(
  url: URL,
  client: "alice" | "bob",
  onLog: () => void = () => {},
): Promise<[Client, Logged[]]> {
  const logs: Logged[] = [];
  const sdk = await clientOf(
    url,
    client,
    (c) =>
      c.setNotificationHandler("notifications/message", (n) => {
        logs.push(n.params);
        onLog();
      }),
  );
  return [sdk, logs];
}

Deno.test("serve --http: a client's late log message never reaches another client's call", async () => {
  // -vv: the gateway says when a log message had no call to go to.
  await using serve = await spawnClientsServe("", { config: CONFIG, flags: ["-vv"] });
  const url = serve.url as URL;
  const relayedToBob = Promise.withResolvers<void>();
  const [alice] = await logging(url, "alice");
  const [bob, bobLogs] = await logging(url, "bob", () => relayedToBob.resolve());
  const [bobWatching] = await logging(url, "bob");
  // Bob is in a call of his own, on his own server, the whole time.
  const bobsCall = bob.callTool({ name: "hold", arguments: { key: "bob" } });
  bobsCall.catch(() => {}); // awaited below; a failure is asserted there
  await bobWatching.callTool({ name: "until_held", arguments: { key: "bob" } });
  const secret = "alice's private data: 4111-1111-1111-1111";
  const answered = await alice.callTool({ name: "late_log", arguments: { text: secret } });
  assert.equal(textOf(answered), "answered; the log comes later");
  // The log went out once the upstream says so; the gateway then either drops it
  // (no call of alice's in flight) or, wrongly, relays it to bob's call.
  await serve.stderr.waitFor(/late log sent/);
  await Promise.race([
    serve.stderr.waitFor(/"mcp\.p": log message not relayed \("no call in flight"\)/),
    relayedToBob.promise,
  ]);
  await bobWatching.callTool({ name: "release", arguments: { key: "bob" } });
  assert.equal(textOf(await bobsCall), "released bob");
  assert.deepEqual(bobLogs, [], "bob received none of alice's log messages");
  assert.ok(!serve.stderr.text.includes("4111-1111"), "nor did spillway's log show it");
  for (const sdk of [alice, bob, bobWatching]) await endSession(sdk);
});

Deno.test("serve --http: a 20 MB log message reaches its client cut at 64 KB with the marker", async () => {
  await using serve = await spawnClientsServe("", { config: CONFIG });
  const [alice, logs] = await logging(serve.url as URL, "alice");
  const result = await alice.callTool({
    name: "log_bytes",
    arguments: { bytes: 20 * 1024 * 1024 },
  });
  assert.equal(textOf(result), `logged ${20 * 1024 * 1024} bytes`);
  assert.equal(logs.length, 1);
  const [logged] = logs;
  const data = String(logged?.data);
  assert.ok(data.endsWith("\n... [truncated, 20.0 MB → 64.0 KB]"), data.slice(-60));
  assert.ok(new TextEncoder().encode(data).length <= 64 * 1024);
  assert.ok(data.startsWith("LLLL"));
  assert.deepEqual([logged?.level, logged?.logger], ["warning", "flood"]);
  await endSession(alice);
});

Deno.test("serve --http: a progress message over 64 KB reaches its caller cut with the marker", async () => {
  await using serve = await spawnClientsServe("", { config: CONFIG });
  const alice = await clientOf(serve.url as URL, "alice");
  const messages: string[] = [];
  await alice.callTool({ name: "progress_bytes", arguments: { bytes: 300_000 } }, {
    onprogress: (update) => void messages.push(update.message ?? ""),
  });
  assert.equal(messages.length, 1);
  const [message = ""] = messages;
  assert.ok(message.endsWith("\n... [truncated, 292.9 KB → 64.0 KB]"), message.slice(-60));
  assert.ok(new TextEncoder().encode(message).length <= 64 * 1024);
  await endSession(alice);
});
