/**
 * `spillway serve --stdio` as an MCP client spawns it: a real SDK client
 * over stdio calls a tool whose upstream returns 3 MB. The result is capped
 * with the exact marker, the session's stream holds the identical text,
 * stderr has the notice, and stdout carried nothing but the protocol.
 */

import assert from "node:assert/strict";
import { Client, StdioClientTransport } from "../src/service/sdk.ts";
import { textOf, upstreamConfig } from "./gateway_fixtures.ts";
import { join } from "./_paths.ts";

const CLI = new URL("../src/cli.ts", import.meta.url).pathname;

Deno.test("an SDK client spawning serve --stdio gets 3 MB capped, recorded as delivered", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway-serve-stdio-" });
  try {
    const config = join(dir, "config.toml");
    await Deno.writeTextFile(config, upstreamConfig());
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: [
        "run",
        "-A",
        CLI,
        "serve",
        "--stdio",
        "--workspace",
        join(dir, "ws"),
        "--config",
        config,
      ],
      cwd: dir,
      stderr: "pipe",
    });
    let stderr = "";
    const decoder = new TextDecoder();
    transport.stderr?.on("data", (chunk: Uint8Array) => stderr += decoder.decode(chunk));
    const client = new Client({ name: "stdio-test", version: "1.0.0" });
    await client.connect(transport);
    const result = await client.callTool({ name: "big", arguments: { bytes: 3 * 1024 * 1024 } });
    const image = await client.callTool({ name: "test_image_content", arguments: {} });
    await client.close();
    const text = textOf(result);
    assert.ok(text.endsWith("\n... [truncated, 3.0 MB → 256.0 KB]"));
    assert.equal((image.content as { type: string }[])[0]?.type, "image");
    assert.match(stderr, /^big: sent 256\.0 KB of 3\.0 MB to the assistant \(size_threshold\)$/m);
    const conversations = [...Deno.readDirSync(join(dir, "ws", "conversations"))];
    assert.equal(conversations.length, 1);
    const lines = Deno.readTextFileSync(
      join(dir, "ws", "conversations", conversations[0]!.name, "events.jsonl"),
    ).trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(lines.map((e) => e.type), [
      "tool_call_request",
      "tool_call_response",
      "tool_call_request",
      "tool_call_response",
    ]);
    assert.equal(lines[1].content, text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
