/**
 * `spillway serve --stdio` as an MCP client spawns it: a real SDK client
 * over stdio calls a tool whose upstream returns 3 MB. The result is capped
 * with the exact marker, the session's stream holds the identical text,
 * stderr has the notice, and stdout carried nothing but the protocol. A
 * client that closes stdin mid-call has that call cancelled and recorded.
 */

import assert from "node:assert/strict";
import { INITIALIZE_REQUEST, StreamLines, textOf, upstreamConfig } from "./gateway_fixtures.ts";
import { join } from "./_paths.ts";
import { serveStdio } from "./_serve_stdio.ts";
import { CLI } from "./_cli.ts";
import { isAlive } from "./_process_probe.ts";

Deno.test("an SDK client spawning serve --stdio gets 3 MB capped, recorded as delivered", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway-serve-stdio-" });
  try {
    const config = join(dir, "config.toml");
    await Deno.writeTextFile(config, upstreamConfig());
    const { client, stderr } = await serveStdio(dir, config);
    const result = await client.callTool({ name: "big", arguments: { bytes: 3 * 1024 * 1024 } });
    const image = await client.callTool({ name: "test_image_content", arguments: {} });
    await client.close();
    const text = textOf(result);
    assert.ok(text.endsWith("\n... [truncated, 3.0 MB → 256.0 KB]"));
    assert.equal((image.content as { type: string }[])[0]?.type, "image");
    assert.match(stderr(), /^big: sent 256\.0 KB of 3\.0 MB to the assistant \(size_threshold\)$/m);
    const conversations = [...Deno.readDirSync(join(dir, "ws", "conversations"))];
    assert.equal(conversations.length, 1);
    const lines = Deno.readTextFileSync(
      join(dir, "ws", "conversations", conversations[0]!.name, "events.jsonl"),
    ).trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(lines.map((e) => e.type), [
      "session_start",
      "tool_call_request",
      "tool_call_response",
      "tool_call_request",
      "tool_call_response",
    ]);
    assert.equal(lines[0].protocol, "2025-11-25");
    assert.equal(lines[2].content, text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The `_meta` envelope of a 2026-07-28 request. */
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

for (const era of ["2025-11-25", "2026-07-28"] as const) {
  Deno.test(`a ${era} stdio client that closes stdin mid-call: the call is cancelled and recorded, serve exits 0`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "spillway-serve-stdio-" });
    try {
      const config = join(dir, "config.toml");
      await Deno.writeTextFile(config, upstreamConfig());
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--quiet",
          CLI,
          "serve",
          "--stdio",
          "--quiet",
          "--workspace",
          "ws",
          "--config",
          config,
        ],
        cwd: dir,
        stdin: "piped",
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const stdout = new StreamLines(child.stdout);
      const writer = child.stdin.getWriter();
      const send = (message: object) =>
        writer.write(
          new TextEncoder().encode(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`),
        );
      const meta = era === "2026-07-28" ? { _meta: ENVELOPE } : {};
      if (era === "2025-11-25") {
        await send(INITIALIZE_REQUEST);
        await stdout.waitFor(/"id":1/);
        await send({ method: "notifications/initialized" });
      }
      await send({ id: 2, method: "tools/call", params: { name: "pid", arguments: {}, ...meta } });
      const [, pid] = await stdout.waitFor(/"text":"(\d+)".*"id":2\}/) as [string, string];
      await send({
        id: 3,
        method: "tools/call",
        params: { name: "hold", arguments: { key: "k" }, ...meta },
      });
      await writer.close();
      assert.equal((await child.status).code, 0);
      await stdout.ended;
      assert.ok(!isAlive(Number(pid)), "no upstream survives");
      const [conversation] = [...Deno.readDirSync(join(dir, "ws", "conversations"))];
      const events = Deno.readTextFileSync(
        join(dir, "ws", "conversations", conversation!.name, "events.jsonl"),
      ).trim().split("\n").map((line) => JSON.parse(line));
      // A 2025 client's revision is the one its initialize settled on.
      assert.equal(
        events[0].protocol,
        era === "2026-07-28" ? era : INITIALIZE_REQUEST.params.protocolVersion,
      );
      assert.deepEqual(events.map((e) => [e.type, e.name ?? e.content]), [
        ["session_start", undefined],
        ["tool_call_request", "pid"],
        ["tool_call_response", pid],
        ["tool_call_request", "hold"],
        [
          "tool_call_response",
          "This tool call was cancelled: the client disconnected (its session ended).",
        ],
      ]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}
