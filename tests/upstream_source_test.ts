/**
 * Integration tests of {@linkcode McpUpstreamSource} against the example
 * server (examples/upstream_server.ts) in a real subprocess: listing, plain
 * and multi-megabyte results, non-text content, loss, cancellation, timeout
 * and start-up failures.
 */

import assert from "node:assert/strict";
import { fakeTestLog } from "../examples/fake_test_log.ts";
import { SpillwayError } from "../src/errors/spillway_error.ts";
import { ToolLostError, type ToolResult } from "../src/service/tool_source.ts";
import {
  McpUpstreamSource,
  type McpUpstreamSourceOptions,
} from "../src/service/upstream/mcp_upstream_source.ts";

const SERVER = new URL("../examples/upstream_server.ts", import.meta.url).pathname;
const never = new AbortController().signal;

function demoSource(options: Partial<McpUpstreamSourceOptions> = {}): McpUpstreamSource {
  return new McpUpstreamSource({
    name: "mcp.demo",
    command: Deno.execPath(),
    args: ["run", "--allow-env", SERVER],
    closeGraceMs: 500,
    ...options,
  });
}

function textOf(result: ToolResult): string {
  const block = result.content[0];
  assert.equal(block?.type, "text");
  assert.equal(typeof block?.text, "string");
  return block?.text as string;
}

function assertSameText(received: string, expected: string): void {
  assert.equal(received.length, expected.length);
  assert.equal(received.slice(0, 200), expected.slice(0, 200));
  assert.equal(received.slice(-200), expected.slice(-200));
  assert.equal(received === expected, true);
}

Deno.test("McpUpstreamSource against the example server", async (t) => {
  const source = demoSource();
  try {
    await t.step("list() returns the server's tools with their schemas", async () => {
      const tools = await source.list();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), [
        "big_report",
        "crash",
        "echo",
        "image_and_text",
        "wait",
      ]);
      const echo = tools.find((tool) => tool.name === "echo");
      assert.equal(echo?.description, "Returns its text argument unchanged.");
      assert.equal(echo?.inputSchema.type, "object");
      assert.deepEqual(echo?.inputSchema.required, ["text"]);
      assert.equal(typeof source.pid, "number");
    });

    await t.step("call() returns the tool's content", async () => {
      const result = await source.call("echo", { text: "héllo\u0000\x1b[1m" }, { signal: never });
      assert.deepEqual(result, { content: [{ type: "text", text: "héllo\u0000\x1b[1m" }] });
    });

    await t.step("a 5 MB result arrives intact", async () => {
      const result = await source.call("big_report", { megabytes: 5 }, { signal: never });
      assertSameText(textOf(result), fakeTestLog(5 * 1024 * 1024));
      assert.equal(result.isError, undefined);
    });

    await t.step("a 50 MB result arrives intact", async () => {
      const result = await source.call("big_report", { megabytes: 50 }, { signal: never });
      assertSameText(textOf(result), fakeTestLog(50 * 1024 * 1024));
    });

    await t.step("image blocks and structuredContent pass through", async () => {
      const result = await source.call("image_and_text", {}, { signal: never });
      assert.equal(result.content.length, 2);
      assert.deepEqual(result.content[0], { type: "text", text: "A single red pixel." });
      assert.equal(result.content[1]?.type, "image");
      assert.equal(result.content[1]?.mimeType, "image/png");
      const png = Uint8Array.from(atob(result.content[1]?.data as string), (c) => c.charCodeAt(0));
      assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
      assert.deepEqual(result.structuredContent, { width: 1, height: 1, color: "#ff0000" });
    });

    await t.step("an unknown tool is the server's error result", async () => {
      const result = await source.call("no_such_tool", {}, { signal: never });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /no_such_tool not found/);
    });

    await t.step("invalid arguments are an error result, not an exception", async () => {
      const result = await source.call("echo", { text: 42 }, { signal: never });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /text/);
    });

    await t.step("an abort rejects with the signal's reason and the server goes on", async () => {
      const controller = new AbortController();
      const call = source.call("wait", { seconds: 30 }, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error("user cancelled")), 100);
      const started = performance.now();
      await assert.rejects(call, (error: Error) => error.message === "user cancelled");
      assert.ok(performance.now() - started < 2_000);
      assert.deepEqual(await source.call("echo", { text: "still here" }, { signal: never }), {
        content: [{ type: "text", text: "still here" }],
      });
    });

    await t.step(
      "a server that exits mid-call loses the call, and the next call restarts it",
      async () => {
        const before = source.pid;
        const started = performance.now();
        await assert.rejects(
          source.call("crash", {}, { signal: never }),
          (error: Error) =>
            error instanceof ToolLostError &&
            error.message === "upstream server mcp.demo exited (code 3) during the call",
        );
        assert.ok(performance.now() - started < 5_000);
        assert.equal(source.pid, undefined);
        assert.deepEqual(await source.call("echo", { text: "back" }, { signal: never }), {
          content: [{ type: "text", text: "back" }],
        });
        assert.notEqual(source.pid, before);
      },
    );
  } finally {
    await source.close();
  }
});

Deno.test("close() during a call loses the call and refuses new ones", async () => {
  const source = demoSource();
  const lost = assert.rejects(
    source.call("wait", { seconds: 30 }, { signal: never }),
    (error: Error) =>
      error instanceof ToolLostError &&
      error.message === "upstream server mcp.demo was closed during the call",
  );
  while (source.pid === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
  await source.close();
  await lost;
  await assert.rejects(
    source.call("echo", { text: "x" }, { signal: never }),
    (error) => error instanceof SpillwayError && error.code === "tool_unavailable",
  );
});

Deno.test("a call past callTimeoutMs is an error result saying so", async () => {
  const source = demoSource({ callTimeoutMs: 300 });
  try {
    const result = await source.call("wait", { seconds: 30 }, { signal: never });
    assert.deepEqual(result, {
      content: [{ type: "text", text: "timed out after 0.3s" }],
      isError: true,
    });
  } finally {
    await source.close();
  }
});

Deno.test("a missing server command is a tool_unavailable fault naming it", async () => {
  const source = new McpUpstreamSource({ name: "mcp.gone", command: "spillway-no-such-server" });
  await assert.rejects(
    source.list(),
    (error) =>
      error instanceof SpillwayError && error.code === "tool_unavailable" &&
      error.message ===
        "cannot start upstream server mcp.gone: command not found: `spillway-no-such-server`",
  );
  await source.close();
});

Deno.test("a server that exits before the handshake is a tool_unavailable fault with its exit code", async () => {
  const source = new McpUpstreamSource({
    name: "mcp.broken",
    command: "sh",
    args: ["-c", "echo 'missing API token' >&2; exit 2"],
    stderr: "null",
  });
  await assert.rejects(
    source.call("anything", {}, { signal: never }),
    (error) =>
      error instanceof SpillwayError &&
      error.message ===
        "cannot start upstream server mcp.broken: it exited (code 2) during the MCP handshake",
  );
  await source.close();
});

/**
 * A scripted server: answers the handshake, then answers the first
 * `tools/call` (request id 1) with `reply`, then waits for stdin to close.
 */
function scriptedSource(reply: string): McpUpstreamSource {
  const init = JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    result: {
      protocolVersion: "2025-06-18",
      capabilities: { tools: {} },
      serverInfo: { name: "scripted", version: "1" },
    },
  });
  return new McpUpstreamSource({
    name: "mcp.scripted",
    command: "sh",
    // Requests: initialize (id 0), notifications/initialized, tools/call (id 1).
    args: [
      "-c",
      'read -r _; printf "%s\\n" "$1"; read -r _; read -r _; printf "%s\\n" "$2"; cat >/dev/null',
      "sh",
      init,
      reply,
    ],
  });
}

Deno.test("a malformed tools/call result is a TypeError naming the source, the tool and the flaw", async () => {
  const source = scriptedSource('{"jsonrpc":"2.0","id":1,"result":{"content":"not an array"}}');
  try {
    await assert.rejects(
      source.call("lint", {}, { signal: never }),
      (error) =>
        error instanceof TypeError &&
        /^mcp\.scripted sent a malformed result for `lint`: content: .*expected array/.test(
          error.message,
        ),
    );
  } finally {
    await source.close();
  }
});

Deno.test("a JSON-RPC error answer is thrown as the SDK's McpError, not a lost call", async () => {
  const source = scriptedSource(
    '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad params"}}',
  );
  try {
    await assert.rejects(
      source.call("lint", {}, { signal: never }),
      (error: Error) =>
        !(error instanceof ToolLostError) && /-32602.*bad params/.test(error.message),
    );
  } finally {
    await source.close();
  }
});

Deno.test("the constructor rejects bad names and timeouts", () => {
  assert.throws(() => new McpUpstreamSource({ name: "github", command: "x" }), TypeError);
  assert.throws(() => new McpUpstreamSource({ name: "mcp.github", command: "" }), TypeError);
  assert.throws(
    () => new McpUpstreamSource({ name: "mcp.github", command: "x", callTimeoutMs: 0 }),
    RangeError,
  );
});
