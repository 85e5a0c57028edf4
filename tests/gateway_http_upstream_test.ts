/**
 * An upstream MCP server reached over Streamable HTTP (`type = "http"`,
 * `url`, `headers`) behind `spillway serve`: its tools are served, capped
 * and recorded like a stdio server's, its progress and sampling reach the
 * client, a call it never answers ends at the tool's timeout, and a server
 * that went away loses the calls sent to it until it is back, when the
 * gateway connects again and says so once.
 */

import assert from "node:assert/strict";

import { startHttpGateway, StreamLines, textOf, UPSTREAM } from "./gateway_fixtures.ts";

const HEADER = "X-Upstream-Key";

/** The conformance upstream over HTTP on `port` (0: any), requiring the header. */
async function startUpstream(port = 0) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-env",
      "--allow-net=127.0.0.1",
      UPSTREAM,
      "--http",
      String(port),
      "--require-header",
      `${HEADER}=opensesame`,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const out = new StreamLines(child.stdout);
  const [, listening] = await out.waitFor(/^listening on (\d+)$/) as [string, string];
  return {
    port: Number(listening),
    async stop() {
      child.kill("SIGKILL");
      await child.status;
      await out.ended;
    },
  };
}

function config(port: number, key = "opensesame"): string {
  return `[providers.mcp.web]
type = "http"
url = "http://127.0.0.1:${port}/mcp"
headers = { ${HEADER} = "${key}" }

[conversation.tools.hold]
timeout = 0.5
`;
}

Deno.test("an HTTP upstream's tools are served, capped, recorded; its relays reach the client", async () => {
  const upstream = await startUpstream();
  try {
    await using gw = await startHttpGateway({ config: config(upstream.port) });
    const client = await gw.client({
      setup: (c) =>
        c.setRequestHandler("sampling/createMessage", () => ({
          role: "assistant",
          content: { type: "text", text: "from the client" },
          model: "m",
        })),
    });
    const big = await client.callTool({ name: "big", arguments: { bytes: 3 * 1024 * 1024 } });
    assert.ok(textOf(big).endsWith("\n... [truncated, 3.0 MB → 256.0 KB]"));
    const progress: number[] = [];
    await client.callTool({ name: "test_tool_with_progress", arguments: {} }, {
      onprogress: (update) => progress.push(update.progress),
    });
    assert.deepEqual(progress, [0, 50, 100]);
    const sampled = await client.callTool({ name: "test_sampling", arguments: { prompt: "hi" } });
    assert.equal(textOf(sampled), "LLM response: from the client");
    const events = await gw.events();
    const responses = events.flatMap((e) => e.type === "tool_call_response" ? [e.content] : []);
    assert.deepEqual(responses, [textOf(big), "Progress tool completed", textOf(sampled)]);
  } finally {
    await upstream.stop();
  }
});

Deno.test("an HTTP upstream without its header: the start is reported saying why, and the gateway serves without it", async () => {
  const upstream = await startUpstream();
  const warnings: string[] = [];
  try {
    await using gw = await startHttpGateway({
      config: config(upstream.port, "wrong"),
      gateway: { warn: (message) => warnings.push(message) },
    });
    assert.equal(warnings.length, 1, warnings.join("\n"));
    assert.match(
      warnings[0] as string,
      /^cannot start upstream server mcp\.web: http:\/\/127\.0\.0\.1:\d+\/mcp: it answered HTTP 401 \(missing header\); spillway serve goes on without its tools and starts it again in the background$/,
    );
    assert.deepEqual(gw.gateway.tools.map((tool) => tool.name), []);
  } finally {
    await upstream.stop();
  }
});

Deno.test("an HTTP upstream: a hang ends at the timeout; while it is gone calls are lost; then it is reached again", async () => {
  let upstream = await startUpstream();
  const warnings: string[] = [];
  await using gw = await startHttpGateway({
    config: config(upstream.port),
    gateway: { warn: (message) => warnings.push(message) },
  });
  const client = await gw.client();
  const hung = await client.callTool({ name: "hold", arguments: { key: "never" } });
  assert.deepEqual([hung.isError, textOf(hung)], [true, "timed out after 0.5s"]);
  // The timeout's cancellation goes to the server after the call ended: once it has
  // arrived, nothing is on its way there, and the next call is the one to find it gone.
  const arrived = await client.callTool({ name: "until_cancelled", arguments: { key: "never" } });
  assert.equal(textOf(arrived), "never was cancelled");
  const port = upstream.port;
  await upstream.stop();
  const lost = await client.callTool({ name: "test_simple_text", arguments: {} });
  assert.deepEqual([lost.isError, textOf(lost)], [
    true,
    "tool call lost: upstream server mcp.web stopped answering (connection refused) during the call",
  ]);
  // It restarts in the background: once it is reached again, the client is told.
  const relisted = Promise.withResolvers<void>();
  client.setNotificationHandler("notifications/tools/list_changed", () => relisted.resolve());
  upstream = await startUpstream(port);
  try {
    await relisted.promise;
    const back = await client.callTool({ name: "test_simple_text", arguments: {} });
    assert.equal(textOf(back), "This is a simple text response for testing.");
    assert.deepEqual(warnings, [
      "upstream server mcp.web stopped answering (connection refused); connecting again",
    ]);
  } finally {
    await upstream.stop();
  }
});
