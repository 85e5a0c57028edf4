/**
 * A 2026-07-28-only upstream (the v2 conformance upstream, `--protocol
 * 2026-07-28`) behind `spillway serve`, reached over stdio and over HTTP
 * with `protocol = "auto"`, for a 2025 client (a v2 `Client` in its default
 * legacy mode): its tools are listed, a 5 MB result is cut to 256 KB with
 * the marker and recorded as delivered, its prompts and resources pass
 * through, and a call's progress and log messages reach the client. A
 * cancelled call reaches the upstream as cancelled, in either era, over
 * either transport.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Client, LOG_LEVEL_META_KEY, StreamableHTTPClientTransport } from "../src/service/sdk.ts";
import { startHttpGateway, textOf } from "./gateway_fixtures.ts";
import { httpV2, V2_ARGS } from "./_upstream_v2.ts";

/** `[providers.mcp.v2]` over stdio with `serverArgs`, and `extra` config. */
function stdioConfig(serverArgs: readonly string[], extra = ""): string {
  return `[providers.mcp.v2]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ${JSON.stringify([...V2_ARGS, ...serverArgs])}
${extra}`;
}

/** `[providers.mcp.v2]` over HTTP at `url`, and `extra` config. */
function httpConfig(url: string, extra = ""): string {
  return `[providers.mcp.v2]
type = "http"
url = ${JSON.stringify(url)}
${extra}`;
}

/** What a 2025 client does through the gateway, checked step by step. */
async function exerciseAs2025Client(
  gw: Awaited<ReturnType<typeof startHttpGateway>>,
  client: Client,
): Promise<void> {
  const { tools } = await client.listTools();
  assert.ok(tools.some((tool) => tool.name === "spillway_big"));

  const big = await client.callTool({
    name: "spillway_big",
    arguments: { bytes: 5 * 1024 * 1024 },
  });
  const delivered = textOf(big);
  assert.ok(delivered.startsWith("line 00000001 of a big upstream result\n"));
  assert.ok(delivered.endsWith("\n... [truncated, 5.0 MB → 256.0 KB]"), delivered.slice(-80));

  const progress: number[] = [];
  const stepped = await client.callTool({ name: "test_tool_with_progress", arguments: {} }, {
    onprogress: (update) => progress.push(update.progress),
  });
  assert.deepEqual(progress, [0, 50, 100]);

  const logs: unknown[] = [];
  client.setNotificationHandler("notifications/message", (note) => {
    logs.push(note.params.data);
  });
  const logged = await client.callTool({ name: "test_logging_tool", arguments: {} });
  assert.deepEqual(logs, ["test_logging_tool ran"]);

  const events = await gw.events();
  const responses = events.flatMap((e) => e.type === "tool_call_response" ? [e.content] : []);
  assert.deepEqual(responses, [delivered, textOf(stepped), textOf(logged)]);

  const prompt = await client.getPrompt({ name: "test_simple_prompt" });
  assert.deepEqual(prompt.messages.map((m) => m.content), [
    { type: "text", text: "This is a simple prompt for testing." },
  ]);
  const read = await client.readResource({ uri: "test://static-text" });
  assert.deepEqual(read.contents.map((c) => "text" in c ? c.text : undefined), [
    "This is the content of the static text resource.",
  ]);
}

Deno.test("a 2026-07-28-only upstream over stdio serves a 2025 client: tools capped and recorded, prompts, resources, progress, logs", async () => {
  await using gw = await startHttpGateway({ config: stdioConfig(["--protocol", "2026-07-28"]) });
  const client = await gw.client();
  assert.equal(client.getNegotiatedProtocolVersion(), "2025-11-25");
  await exerciseAs2025Client(gw, client);
});

Deno.test("a 2026-07-28-only upstream over HTTP serves a 2025 client: tools capped and recorded, prompts, resources, progress, logs", async () => {
  await using upstream = await httpV2(["--protocol", "2026-07-28"]);
  await using gw = await startHttpGateway({ config: httpConfig(upstream.url) });
  const client = await gw.client();
  await exerciseAs2025Client(gw, client);
});

/**
 * Calls `spillway_wait` through the gateway, cancels it once the upstream
 * reported progress (it runs), and resolves with what the upstream wrote
 * when its request was cancelled.
 */
async function cancelledUpstream(config: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "spillway-cancel-" });
  const marker = join(dir, "cancelled.txt");
  try {
    await using gw = await startHttpGateway({ config });
    const client = await gw.client();
    const abort = new AbortController();
    const call = client.callTool({ name: "spillway_wait", arguments: { marker } }, {
      signal: abort.signal,
      onprogress: () => abort.abort(new Error("the test cancels")),
    });
    await assert.rejects(call);
    // The upstream writes the file once its request is cancelled: wait for it.
    for (;;) {
      try {
        return await Deno.readTextFile(marker);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a cancelled call is cancelled upstream: stdio, 2026-07-28 and 2025-11-25 (notifications/cancelled)", async () => {
  for (const protocol of ["2026-07-28", "2025-11-25"]) {
    const text = await cancelledUpstream(stdioConfig(["--protocol", protocol]));
    assert.match(text, /^cancelled: /, protocol);
  }
});

Deno.test("a cancelled call is cancelled upstream: HTTP 2026-07-28 by closing its request, 2025-11-25 by notifications/cancelled", async () => {
  for (const protocol of ["2026-07-28", "2025-11-25"]) {
    const dir = await Deno.makeTempDir({ prefix: "spillway-cancel-log-" });
    const log = join(dir, "upstream.jsonl");
    try {
      await using upstream = await httpV2(["--protocol", protocol, "--log", log]);
      const text = await cancelledUpstream(httpConfig(upstream.url));
      assert.match(text, /^cancelled: /, protocol);
      const bodies = (await Deno.readTextFile(log)).trim().split("\n")
        .map((line) => JSON.parse(line).body);
      const call = bodies.find((body) => body?.method === "tools/call");
      const cancels = bodies.filter((body) =>
        body?.method === "notifications/cancelled" && body.params.requestId === call.id
      );
      // 2026-07-28 over HTTP: the closed request is the cancellation, nothing is posted.
      assert.equal(cancels.length, protocol === "2025-11-25" ? 1 : 0, protocol);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("a 2025-only upstream serves a 2026-07-28 client through the gateway: tools capped and recorded, prompts, resources, progress, logs", async () => {
  await using gw = await startHttpGateway({ config: stdioConfig(["--protocol", "2025-11-25"]) });
  const client = new Client({ name: "modern-test", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(gw.serving.url, {
      requestInit: { headers: { authorization: `Bearer ${gw.token}` } },
    }),
  );
  try {
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
    const big = await client.callTool({
      name: "spillway_big",
      arguments: { bytes: 5 * 1024 * 1024 },
    });
    const delivered = textOf(big);
    assert.ok(delivered.endsWith("\n... [truncated, 5.0 MB → 256.0 KB]"), delivered.slice(-80));
    const progress: number[] = [];
    await client.callTool({ name: "test_tool_with_progress", arguments: {} }, {
      onprogress: (update) => progress.push(update.progress),
    });
    assert.deepEqual(progress, [0, 50, 100]);
    const logs: unknown[] = [];
    client.setNotificationHandler("notifications/message", (note) => {
      logs.push(note.params.data);
    });
    // A 2026-07-28 client asks for log messages per request.
    await client.callTool({
      name: "test_tool_with_logging",
      arguments: {},
      _meta: { [LOG_LEVEL_META_KEY]: "debug" },
    });
    assert.ok(logs.length > 0, "the upstream's log messages reached the client");
    const events = await gw.events();
    const responses = events.flatMap((e) => e.type === "tool_call_response" ? [e.content] : []);
    assert.equal(responses[0], delivered);
    const prompt = await client.getPrompt({ name: "test_simple_prompt" });
    assert.equal(prompt.messages.length, 1);
    const read = await client.readResource({ uri: "test://static-text" });
    assert.deepEqual(read.contents.map((c) => "text" in c ? c.text : undefined), [
      "This is the content of the static text resource.",
    ]);
  } finally {
    await client.close();
  }
});
