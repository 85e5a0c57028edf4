/**
 * One upstream server that does not answer does not stop a real
 * `spillway serve --http`: it is reported on stderr and started again in
 * the background, the other server's tools are served meanwhile, a call of
 * the missing server's tool gets an error naming it and why (recorded like
 * any response), and once it answers its tools are listed and every client
 * is told (`notifications/tools/list_changed`).
 */

import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "../src/service/sdk.ts";
import { join } from "./_paths.ts";
import { spawnHttpServe, textOf, upstreamConfig } from "./gateway_fixtures.ts";

const TOKEN = "late-upstream-test-token-0123456789";
const GATED = new URL("./fixtures/gateway/gated_upstream.ts", import.meta.url).pathname;

/** The note an unknown tool's answer ends with while mcp.slow does not answer (exact). */
const NOT_ANSWERING = "; the tools of upstream servers that do not answer yet are not listed: " +
  "cannot start upstream server mcp.slow: it did not answer initialize within 1 s " +
  "(started again in the background)";

Deno.test("serve --http: an upstream hung in initialize is reported and retried; the other's tools work, then its tools appear", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway-late-" });
  const gate = join(dir, "gate");
  try {
    const config = upstreamConfig(`
[providers.mcp.slow]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ${JSON.stringify(["run", "--quiet", "--allow-env", "--allow-read", GATED, gate])}
startup_timeout = 1

[conversation.tools.gated_echo]
size_threshold = "1MB"
`);
    await using serve = await spawnHttpServe([], {
      config,
      env: { SPILLWAY_SERVE_TOKEN: TOKEN },
    });
    // Said on stderr before the gateway listened, without -v.
    assert.match(
      serve.stderr.text,
      /^warning: cannot start upstream server mcp\.slow: it did not answer initialize within 1 s; spillway serve goes on without its tools and starts it again in the background$/m,
    );
    // Its tools being unknown, their entries are said to be unchecked, not unknown.
    assert.match(
      serve.stderr.text,
      /^warning: cannot start upstream server mcp\.slow: it did not answer initialize within 1 s; its tools were not listed, so these entries were not checked: gated_echo$/m,
    );
    assert.doesNotMatch(serve.stderr.text, /no source provides a tool named gated_echo/);
    const client = new Client({ name: "late-test", version: "1.0.0" });
    const changed = Promise.withResolvers<void>();
    client.setNotificationHandler("notifications/tools/list_changed", () => changed.resolve());
    await client.connect(
      new StreamableHTTPClientTransport(serve.url as URL, {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      const before = (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(before.includes("pid"), "the conformance server's tools are served");
      assert.ok(!before.includes("gated_echo"));
      // The other server's tools work meanwhile.
      assert.match(textOf(await client.callTool({ name: "pid", arguments: {} })), /^\d+$/);
      // A call of the missing server's tool says which server and why, and is recorded.
      const missing = await client.callTool({ name: "gated_echo", arguments: { text: "hi" } });
      assert.equal(missing.isError, true);
      assert.ok(textOf(missing).startsWith("tool gated_echo is not available"), textOf(missing));
      assert.ok(textOf(missing).endsWith(NOT_ANSWERING), textOf(missing));
      const conversations = join(serve.workspace, "conversations");
      const [id] = [...Deno.readDirSync(conversations)].map((entry) => entry.name);
      const events = (await Deno.readTextFile(join(conversations, id as string, "events.jsonl")))
        .trim().split("\n").map((line) => JSON.parse(line));
      const request = events.find((e) => e.type === "tool_call_request" && e.name === "gated_echo");
      const response = events.find((e) => e.type === "tool_call_response" && e.id === request?.id);
      assert.deepEqual([response?.content, response?.is_error], [textOf(missing), true]);

      // The server can start now: its next background start succeeds, and the client is told.
      await Deno.writeTextFile(gate, "");
      await changed.promise;
      await serve.stderr.waitFor(/^warning: upstream server mcp\.slow answers now: 1 tool served$/);
      const after = (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(after.includes("gated_echo") && after.includes("pid"), after.join(", "));
      const echoed = await client.callTool({ name: "gated_echo", arguments: { text: "late hi" } });
      assert.deepEqual([textOf(echoed), echoed.isError ?? false], ["late hi", false]);
    } finally {
      await client.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
