/**
 * Integration tests of {@linkcode McpUpstreamSource} against servers in real
 * subprocesses: the example server (examples/upstream_server.ts) for
 * listing, plain and multi-megabyte results, non-text content, loss and
 * restart; the scripted server (tests/fixtures/upstream/scripted_server.ts)
 * for everything a server can do wrong: hang, answer garbage, answer
 * nobody, never finish the handshake. The tool source contract runs against
 * the scripted server too.
 */

import assert from "node:assert/strict";
import { SimulatedClock } from "xstate";
import { fakeTestLog } from "../examples/fake_test_log.ts";
import { SpillwayError } from "../src/errors/spillway_error.ts";
import { ToolLostError, type ToolResult } from "../src/service/tool_source.ts";
import {
  CONTRACT_TIMEOUT_MS,
  defineToolSourceContract,
} from "../src/testing/tool_source_contract.ts";
import { DEFAULT_TOOL_TIMEOUT_MS } from "../src/service/tool_timeout.ts";
import {
  McpUpstreamSource,
  type McpUpstreamSourceOptions,
} from "../src/service/upstream/mcp_upstream_source.ts";
import { HOLD_PROBE, isAlive, ProcessProbe } from "./_process_probe.ts";
import { Announcements, SCRIPTED_SERVER } from "./_scripted_server.ts";
import { captureLogs } from "./_upstream_logs.ts";
import { ProtocolError } from "../src/service/sdk.ts";

const EXAMPLE_SERVER = new URL("../examples/upstream_server.ts", import.meta.url).pathname;
const never = new AbortController().signal;

function demoSource(options: Partial<McpUpstreamSourceOptions> = {}): McpUpstreamSource {
  return new McpUpstreamSource({
    name: "mcp.demo",
    command: Deno.execPath(),
    args: ["run", "--quiet", "--allow-env", EXAMPLE_SERVER],
    closeGraceMs: 500,
    ...options,
  });
}

function scriptedSource(
  announcements: Announcements,
  options: Partial<McpUpstreamSourceOptions> & { readonly flags?: readonly string[] } = {},
): McpUpstreamSource {
  const { flags = [], ...rest } = options;
  return new McpUpstreamSource({
    name: "mcp.scripted",
    command: Deno.execPath(),
    args: ["run", "--quiet", SCRIPTED_SERVER, ...flags],
    stderr: announcements.sink,
    closeGraceMs: 300,
    ...rest,
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

defineToolSourceContract("McpUpstreamSource", ({ clock }) => {
  const announcements = new Announcements();
  const source = scriptedSource(announcements, {
    timeoutFor: (tool) => tool === "hang" ? CONTRACT_TIMEOUT_MS : DEFAULT_TOOL_TIMEOUT_MS,
    clock,
  });
  return Promise.resolve({
    source,
    tools: { echo: "echo", fail: "fail", hang: "hang", wait: "wait", malformed: "malformed" },
    starts: announcements.starts,
    stops: announcements.stops,
    cleanup: () => source.close(),
  });
});

Deno.test("McpUpstreamSource against the example server", async (t) => {
  const warnings: string[] = [];
  const source = demoSource({ warn: (message) => warnings.push(message) });
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

    await t.step("invalid arguments are the server's error result, not an exception", async () => {
      const result = await source.call("echo", { text: 42 }, { signal: never });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /text/);
    });

    await t.step(
      "a server that exits mid-call loses the call; the next call restarts it and says so once",
      async () => {
        const before = source.pid;
        await assert.rejects(
          source.call("crash", {}, { signal: never }),
          (error: Error) =>
            error instanceof ToolLostError &&
            error.message === "upstream server mcp.demo exited (code 3) during the call",
        );
        assert.equal(source.pid, undefined);
        assert.deepEqual(warnings, []);
        assert.deepEqual(await source.call("echo", { text: "back" }, { signal: never }), {
          content: [{ type: "text", text: "back" }],
        });
        assert.deepEqual(await source.call("echo", { text: "again" }, { signal: never }), {
          content: [{ type: "text", text: "again" }],
        });
        assert.notEqual(source.pid, before);
        assert.deepEqual(warnings, [
          "upstream server mcp.demo exited (code 3); starting it again",
        ]);
      },
    );
  } finally {
    await source.close();
  }
});

Deno.test("close() during a call loses the call and refuses new ones", async () => {
  const announcements = new Announcements();
  const source = scriptedSource(announcements);
  const lost = assert.rejects(
    source.call("wait", {}, { signal: never }),
    (error: Error) =>
      error instanceof ToolLostError &&
      error.message === "upstream server mcp.scripted was closed during the call",
  );
  await announcements.starts.reached(1);
  await source.close();
  await lost;
  await assert.rejects(
    source.call("echo", { text: "x" }, { signal: never }),
    (error) =>
      error instanceof SpillwayError && error.code === "tool_unavailable" &&
      error.message === "mcp.scripted is closed",
  );
});

Deno.test("an abort rejects with the signal's reason before the server hears of it", async () => {
  const announcements = new Announcements();
  const source = scriptedSource(announcements);
  try {
    const controller = new AbortController();
    const call = source.call("wait", {}, { signal: controller.signal });
    await announcements.starts.reached(1);
    controller.abort(new Error("user cancelled"));
    await assert.rejects(call, (error: Error) => error.message === "user cancelled");
    // The notification is written after the rejection: nothing waited for the server.
    assert.equal(announcements.stops.count, 0);
    await announcements.stops.reached(1);
  } finally {
    await source.close();
  }
});

Deno.test("a call past its tool's timeout is the timeout result, and the request is cancelled", async () => {
  const announcements = new Announcements();
  await using logs = await captureLogs();
  const clock = new SimulatedClock();
  const source = scriptedSource(announcements, { timeoutFor: () => 250, clock });
  try {
    const call = source.call("wait", {}, { signal: never });
    await announcements.starts.reached(1);
    clock.increment(250);
    const result = await call;
    assert.deepEqual(result, {
      content: [{ type: "text", text: "timed out after 0.25s" }],
      isError: true,
    });
    await announcements.stops.reached(1);
    assert.deepEqual(logs.lines, [
      "mcp.scripted: tools/call `wait` timed out after 0.25s; the request was cancelled",
    ]);
  } finally {
    await source.close();
  }
});

Deno.test("a reply that is not JSON fails the call it names at once, and is logged", async () => {
  await using logs = await captureLogs();
  const source = scriptedSource(new Announcements());
  try {
    await assert.rejects(
      source.call("garbage", {}, { signal: never }),
      (error) =>
        error instanceof SpillwayError && error.code === "malformed_result" &&
        error.message ===
          "mcp.scripted returned a malformed result for `garbage`: a line that is not JSON: " +
            '"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":2,\\"result\\":{\\"content\\":[{\\"type\\":"',
    );
    assert.deepEqual(logs.lines, [
      "mcp.scripted: the server wrote a line that is not JSON: " +
      '"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":2,\\"result\\":{\\"content\\":[{\\"type\\":"; ' +
      "it answers tools/call `garbage`, which fails",
    ]);
    assert.deepEqual(await source.call("echo", { text: "fine" }, { signal: never }), {
      content: [{ type: "text", text: "fine" }],
    });
  } finally {
    await source.close();
  }
});

Deno.test("a reply that names no request fails every call waiting at once, saying why", async () => {
  await using logs = await captureLogs();
  const announcements = new Announcements();
  // Far beyond the test's run: only the reply can end these calls.
  const source = scriptedSource(announcements, { timeoutFor: () => 600_000 });
  const nullReply = '"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":null,\\"error\\":{\\"code\\":-32700,' +
    '\\"message\\":\\"Parse error\\"}}"';
  const noIdReply = '"{\\"jsonrpc\\":\\"2.0\\",\\"error\\":{\\"code\\":-32600,' +
    '\\"message\\":\\"Invalid Request\\"}}"';
  const failure = (tool: string, reply: string) =>
    `mcp.scripted returned a malformed result for \`${tool}\`: a reply that names no request: ` +
    `${reply}; it cannot be matched to one call, so every call waiting fails`;
  const failsWith = (tool: string, reply: string) => (error: unknown) =>
    error instanceof SpillwayError && error.code === "malformed_result" &&
    error.message === failure(tool, reply);
  try {
    const hanging = source.call("hang", {}, { signal: never });
    await announcements.starts.reached(1);
    // `idless` answers `"id": null`: the call waiting on `hang` fails with it.
    const [hang, idless] = await Promise.allSettled([
      hanging,
      source.call("idless", {}, { signal: never }),
    ]);
    assert.equal(hang.status, "rejected");
    assert.ok(failsWith("hang", nullReply)(hang.reason), String(hang.reason));
    assert.equal(idless.status, "rejected");
    assert.ok(failsWith("idless", nullReply)(idless.reason), String(idless.reason));
    // An error answer with no id at all is the same.
    await assert.rejects(
      source.call("idless", { text: "no id" }, { signal: never }),
      failsWith("idless", noIdReply),
    );
    // The server is still there, and still answers.
    assert.equal(
      textOf(await source.call("echo", { text: "still here" }, { signal: never })),
      "still here",
    );
    assert.deepEqual(logs.lines, [
      `mcp.scripted: the server wrote a reply that names no request: ${nullReply}; it cannot be ` +
      "matched to one request, so every request waiting fails: tools/call `hang`, " +
      "tools/call `idless`",
      `mcp.scripted: the server wrote a reply that names no request: ${noIdReply}; it cannot be ` +
      "matched to one request, so every request waiting fails: tools/call `idless`",
    ]);
  } finally {
    await source.close();
  }
});

Deno.test("a line that is not a reply, or answers a request never sent, is logged; the call ends at its timeout", async () => {
  await using logs = await captureLogs();
  const clock = new SimulatedClock();
  const source = scriptedSource(new Announcements(), { timeoutFor: () => 300, clock });
  try {
    // Each call waits until its line was logged; then its time is up.
    const anonymous = source.call("anonymous", {}, { signal: never });
    await logs.logged.reached(1);
    clock.increment(300);
    assert.equal(textOf(await anonymous), "timed out after 0.3s");
    const stray = source.call("stray", {}, { signal: never });
    await logs.logged.reached(3);
    clock.increment(300);
    assert.equal(textOf(await stray), "timed out after 0.3s");
    assert.deepEqual(logs.lines, [
      "mcp.scripted: the server wrote a line that is not JSON: " +
      '"Traceback (most recent call last): the server fell over"; it names no request that ' +
      "waits for an answer, so it cannot be matched to one; the request still waiting ends at " +
      "its timeout at the latest",
      "mcp.scripted: tools/call `anonymous` timed out after 0.3s; the request was cancelled",
      "mcp.scripted: the server wrote a reply to request 4242, which nothing waits for: " +
      '"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":4242,\\"result\\":{\\"content\\":[{\\"type\\":\\"text\\",' +
      '\\"text\\":\\"an answer to nobody\\"}]}}"; it names no request that waits for an answer, ' +
      "so it cannot be matched to one; the request still waiting ends at its timeout at the latest",
      "mcp.scripted: tools/call `stray` timed out after 0.3s; the request was cancelled",
    ]);
  } finally {
    await source.close();
  }
});

Deno.test("a tool the server did not list is unknown, without asking the server", async () => {
  const announcements = new Announcements();
  const source = scriptedSource(announcements);
  try {
    await assert.rejects(
      source.call("no_such_tool", {}, { signal: never }),
      (error) =>
        error instanceof SpillwayError && error.code === "tool_unavailable" &&
        error.message === "mcp.scripted has no tool `no_such_tool`",
    );
  } finally {
    await source.close();
  }
});

Deno.test("a JSON-RPC error answer is thrown as the SDK's ProtocolError, not a lost call", async () => {
  const source = scriptedSource(new Announcements());
  try {
    await assert.rejects(
      source.call("refuse", {}, { signal: never }),
      (error: Error) =>
        error instanceof ProtocolError && error.code === -32602 &&
        error.message === "bad params",
    );
  } finally {
    await source.close();
  }
});

Deno.test("a server that never answers initialize is killed and reported as such", async () => {
  const announcements = new Announcements();
  await using logs = await captureLogs();
  const clock = new SimulatedClock();
  const source = scriptedSource(announcements, {
    flags: ["--silent-initialize", "--ignore-term", "--linger"],
    startupTimeoutMs: 400,
    closeGraceMs: 100,
    clock,
  });
  const message = "cannot start upstream server mcp.scripted: it did not answer initialize " +
    "within 0.4 s";
  const failed = assert.rejects(
    source.list(),
    (error) =>
      error instanceof SpillwayError && error.code === "tool_unavailable" &&
      error.message === message,
  );
  const pid = await announcements.silentInitialize.promise;
  clock.increment(400);
  await failed;
  // It ignored stdin's end and SIGTERM: it took the SIGKILL, and was reaped before the answer.
  assert.equal(isAlive(pid), false);
  assert.deepEqual(logs.lines, [message]);
  await source.close();
});

Deno.test("close() during the handshake stops the server at once, not at its start-up timeout", async () => {
  await using probe = await ProcessProbe.create();
  await using logs = await captureLogs();
  const announcements = new Announcements();
  // The server holds the probe: its end-of-file says the whole group is gone.
  const source = new McpUpstreamSource({
    name: "mcp.scripted",
    command: "sh",
    args: [
      "-c",
      `${HOLD_PROBE}; exec "$2" run --quiet "$3" --silent-initialize --ignore-term --linger`,
      "sh",
      probe.path,
      Deno.execPath(),
      SCRIPTED_SERVER,
    ],
    stderr: announcements.sink,
    // Were close() to wait for the handshake, the start would fail with this timeout's message.
    startupTimeoutMs: 60_000,
    closeGraceMs: 100,
  });
  const message = "cannot start upstream server mcp.scripted: it was closed before it answered " +
    "initialize";
  const failed = assert.rejects(
    source.list(),
    (error) =>
      error instanceof SpillwayError && error.code === "tool_unavailable" &&
      error.message === message,
  );
  const pid = await announcements.silentInitialize.promise;
  await source.close();
  // It ignored stdin's end and SIGTERM: close() waited for the SIGKILL and the reaping.
  assert.equal(isAlive(pid), false);
  await probe.stops.reached(1);
  await failed;
  // A deliberate close is no fault of the server's: logged, not warned about.
  assert.deepEqual(logs.lines, [
    "upstream server mcp.scripted: it was closed before it answered initialize",
  ]);
  await assert.rejects(source.list(), { message: "mcp.scripted is closed" });
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

Deno.test("the constructor rejects bad names and time limits", () => {
  assert.throws(() => new McpUpstreamSource({ name: "github", command: "x" }), TypeError);
  assert.throws(() => new McpUpstreamSource({ name: "mcp.github", command: "" }), TypeError);
  assert.throws(
    () => new McpUpstreamSource({ name: "mcp.github", command: "x", startupTimeoutMs: 0 }),
    RangeError,
  );
});
