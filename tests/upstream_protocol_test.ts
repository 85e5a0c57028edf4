/**
 * `providers.mcp.<name>.protocol` against the v2 conformance upstream
 * (`tests/fixtures/gateway/conformance_v2/server.ts`) over stdio and HTTP:
 * `auto` picks 2026-07-28 from a server of both eras and 2025-11-25 from a
 * 2025-only one, keeps its verdict for the server's next connection, and a
 * pinned 2026-07-28 against a 2025-only server fails to start naming the
 * key. On 2026-07-28, the call's progress and log messages reach its
 * caller, `list_changed` reaches the source, and an `input_required`
 * answer ends the call with an error result.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { SpillwayError } from "../src/errors/spillway_error.ts";
import { McpUpstreamSource } from "../src/service/upstream/mcp_upstream_source.ts";
import type { LogMessage } from "../src/service/tool_call_relay.ts";
import { textOf } from "./gateway_fixtures.ts";
import { httpV2, stdioV2 } from "./_upstream_v2.ts";
import { SCRIPTED_SERVER } from "./_scripted_server.ts";
import { InquiryFailedError } from "../src/service/upstream/upstream_call_relays.ts";

const never = new AbortController().signal;

Deno.test("protocol auto speaks 2026-07-28 to a server of both eras, over stdio and HTTP", async () => {
  const stdio = stdioV2([]);
  try {
    assert.ok((await stdio.list()).some((tool) => tool.name === "spillway_big"));
    assert.equal(stdio.protocolVersionOf(), "2026-07-28");
  } finally {
    await stdio.close();
  }
  await using upstream = await httpV2([]);
  const http = new McpUpstreamSource({ name: "mcp.v2", url: upstream.url });
  try {
    await http.list();
    assert.equal(http.protocolVersionOf(), "2026-07-28");
  } finally {
    await http.close();
  }
});

Deno.test("protocol auto falls back to 2025-11-25 against a 2025-only server, over stdio and HTTP", async () => {
  const stdio = stdioV2(["--protocol", "2025-11-25"]);
  try {
    const result = await stdio.call("test_simple_text", {}, { signal: never });
    assert.equal(textOf(result), "This is a simple text response for testing.");
    assert.equal(stdio.protocolVersionOf(), "2025-11-25");
  } finally {
    await stdio.close();
  }
  await using upstream = await httpV2(["--protocol", "2025-11-25"]);
  const http = new McpUpstreamSource({ name: "mcp.v2", url: upstream.url });
  try {
    await http.list();
    assert.equal(http.protocolVersionOf(), "2025-11-25");
  } finally {
    await http.close();
  }
});

Deno.test("a pinned 2026-07-28 against a 2025-only server fails to start, naming the key", async () => {
  const expected = (error: unknown) =>
    error instanceof SpillwayError && error.code === "tool_unavailable" &&
    /^cannot start upstream server mcp\.v2: it does not serve MCP 2026-07-28, which providers\.mcp\.v2\.protocol = "2026-07-28" asks for \(.+\): set protocol = "auto" to speak what it serves$/
      .test(error.message);
  const stdio = stdioV2(["--protocol", "2025-11-25"], { protocol: "2026-07-28" });
  try {
    await assert.rejects(stdio.list(), expected);
  } finally {
    await stdio.close();
  }
  await using upstream = await httpV2(["--protocol", "2025-11-25"]);
  const http = new McpUpstreamSource({ name: "mcp.v2", url: upstream.url, protocol: "2026-07-28" });
  try {
    await assert.rejects(http.list(), expected);
  } finally {
    await http.close();
  }
});

Deno.test("a pinned 2025-11-25 speaks 2025-11-25 to a server of both eras, without a probe", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway-protocol-" });
  const log = join(dir, "upstream.jsonl");
  const source = stdioV2(["--log", log], { protocol: "2025-11-25" });
  try {
    await source.list();
    assert.equal(source.protocolVersionOf(), "2025-11-25");
    const methods = (await Deno.readTextFile(log)).trim().split("\n")
      .map((line) => JSON.parse(line).message.method);
    assert.equal(methods[0], "initialize");
    assert.ok(!methods.includes("server/discover"), methods.join(", "));
  } finally {
    await source.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the verdict of auto is kept: another client's connection to the server is not probed again", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway-protocol-" });
  const log = join(dir, "upstream.jsonl");
  const source = stdioV2(["--log", log]);
  try {
    for (const principal of ["alice", "bob"]) {
      const result = await source.call("test_simple_text", {}, { signal: never, principal });
      assert.equal(textOf(result), "This is a simple text response for testing.");
      assert.equal(source.protocolVersionOf(principal), "2026-07-28");
    }
    assert.notEqual(source.pidOf("alice"), source.pidOf("bob"));
    const records = (await Deno.readTextFile(log)).trim().split("\n").map((line) =>
      JSON.parse(line)
    );
    const pids = new Set(records.map((record) => record.pid));
    const probes = records.filter((record) => record.message.method === "server/discover");
    assert.equal(pids.size, 2);
    assert.equal(probes.length, 1, "one server/discover for both connections");
    assert.ok(!records.some((record) => record.message.method === "initialize"));
  } finally {
    await source.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a 2026-07-28 upstream's progress and log messages reach the call's caller", async () => {
  const source = stdioV2(["--protocol", "2026-07-28"]);
  try {
    const progress: number[] = [];
    const done = await source.call("test_tool_with_progress", {}, {
      signal: never,
      relay: { progress: (update) => progress.push(update.progress) },
    });
    assert.ok(!done.isError);
    assert.deepEqual(progress, [0, 50, 100]);
    const logs: LogMessage[] = [];
    await source.call("test_logging_tool", {}, {
      signal: never,
      relay: { log: (message) => logs.push(message) },
    });
    assert.deepEqual(logs.map((message) => [message.level, message.data]), [
      ["info", "test_logging_tool ran"],
    ]);
    // The caller's level goes with the call: the server sends nothing below it.
    const warnings: LogMessage[] = [];
    await source.call("test_logging_tool", {}, {
      signal: never,
      relay: { log: (message) => warnings.push(message), logLevel: "warning" },
    });
    assert.deepEqual(warnings, []);
  } finally {
    await source.close();
  }
});

Deno.test("a 2026-07-28 upstream's tools/list_changed reaches the source on its listen stream", async () => {
  await using upstream = await httpV2(["--protocol", "2026-07-28"]);
  const source = new McpUpstreamSource({ name: "mcp.v2", url: upstream.url });
  try {
    await source.list();
    const changed = Promise.withResolvers<void>();
    source.onToolsChanged(() => changed.resolve());
    await source.call("test_trigger_tool_change", {}, { signal: never });
    await changed.promise;
  } finally {
    await source.close();
  }
});

Deno.test("a 2026-07-28 upstream's input_required is asked of the call's caller, and the call goes on with the answer", async () => {
  const source = stdioV2(["--protocol", "2026-07-28"], { relayInquiries: true });
  try {
    const asked: string[] = [];
    const result = await source.call("test_input_required_result_elicitation", {}, {
      signal: never,
      relay: {
        request: (caller) => {
          asked.push(caller.method);
          return Promise.resolve({ action: "accept", content: { name: "Ada" } });
        },
      },
    });
    assert.deepEqual(asked, ["elicitation/create"]);
    assert.equal(result.isError ?? false, false);
    assert.equal(textOf(result), "Hello, Ada!");
  } finally {
    await source.close();
  }
});

Deno.test("a 2026-07-28 upstream's input_required that the caller cannot answer fails the inquiry, as a 2025 request would", async () => {
  const source = stdioV2(["--protocol", "2026-07-28"], { relayInquiries: true });
  try {
    await assert.rejects(
      source.call("test_input_required_result_elicitation", {}, {
        signal: never,
        relay: {
          request: () => Promise.reject(new Error("the client does not support elicitation")),
        },
      }),
      (error) =>
        error instanceof InquiryFailedError &&
        /the client does not support elicitation/.test(error.message),
    );
  } finally {
    await source.close();
  }
});

Deno.test("a stdio server that exits on the probe fails one start, then is spoken to in 2025-11-25", async () => {
  const source = new McpUpstreamSource({
    name: "mcp.strict",
    command: Deno.execPath(),
    args: ["run", "--quiet", SCRIPTED_SERVER, "--exit-before-initialize", "--quiet"],
    stderr: "null",
  });
  try {
    await assert.rejects(
      source.list(),
      (error) => error instanceof SpillwayError && error.code === "tool_unavailable",
    );
    const result = await source.call("echo", { text: "hi" }, { signal: never });
    assert.equal(textOf(result), "hi");
    assert.equal(source.protocolVersionOf(), "2025-11-25");
  } finally {
    await source.close();
  }
});

Deno.test("a stdio server silent to the probe is spoken to in 2025-11-25 once the probe's time is up", async () => {
  const source = new McpUpstreamSource({
    name: "mcp.silent",
    command: Deno.execPath(),
    args: ["run", "--quiet", SCRIPTED_SERVER, "--ignore-before-initialize", "--quiet"],
    stderr: "null",
    // The probe gets half of it: 1 s.
    startupTimeoutMs: 2_000,
  });
  try {
    const result = await source.call("echo", { text: "hi" }, { signal: never });
    assert.equal(textOf(result), "hi");
    assert.equal(source.protocolVersionOf(), "2025-11-25");
  } finally {
    await source.close();
  }
});
