/**
 * {@linkcode McpUpstreamSource} over Streamable HTTP against the scripted
 * server (`--http`), which answers each request on an event stream of its
 * own: the tool source contract, a server that dies while a call's stream
 * is open (the call fails at once, not at its timeout), and the session
 * ended with an HTTP DELETE when the source closes.
 */

import assert from "node:assert/strict";
import { ToolLostError } from "../src/service/tool_source.ts";
import { DEFAULT_TOOL_TIMEOUT_MS } from "../src/service/tool_timeout.ts";
import { McpUpstreamSource } from "../src/service/upstream/mcp_upstream_source.ts";
import {
  CONTRACT_TIMEOUT_MS,
  defineToolSourceContract,
} from "../src/testing/tool_source_contract.ts";
import { type ScriptedHttpServer, startScriptedHttpServer } from "./_scripted_server.ts";

const never = new AbortController().signal;

/** A source on `server`, with the warnings it gave. */
function sourceOn(server: ScriptedHttpServer): { source: McpUpstreamSource; warnings: string[] } {
  const warnings: string[] = [];
  const source = new McpUpstreamSource({
    name: "mcp.scripted",
    url: server.url,
    warn: (message) => warnings.push(message),
  });
  return { source, warnings };
}

defineToolSourceContract("McpUpstreamSource over HTTP", async () => {
  const server = await startScriptedHttpServer();
  const source = new McpUpstreamSource({
    name: "mcp.scripted",
    url: server.url,
    timeoutFor: (tool) => tool === "hang" ? CONTRACT_TIMEOUT_MS : DEFAULT_TOOL_TIMEOUT_MS,
  });
  return {
    source,
    tools: { echo: "echo", fail: "fail", hang: "hang", wait: "wait", malformed: "malformed" },
    starts: server.announcements.starts,
    stops: server.announcements.stops,
    cleanup: async () => {
      await source.close();
      await server.stop();
    },
  };
});

Deno.test("an HTTP upstream that dies while a call's stream is open fails that call at once; the next call connects again", async () => {
  const server = await startScriptedHttpServer(["--quiet"]);
  // The default timeout (120 s) would outlast the test: the call must not wait for it.
  const { source, warnings } = sourceOn(server);
  try {
    assert.equal(
      (await source.call("echo", { text: "before" }, { signal: never })).content[0]?.text,
      "before",
    );
    await assert.rejects(
      source.call("crash", {}, { signal: never }),
      (error) =>
        error instanceof ToolLostError &&
        /^upstream server mcp\.scripted stopped answering \(the stream of an answer broke \(.+\)\) during the call$/
          .test(error.message),
    );
    assert.deepEqual(warnings, []);
    // The next call connects again (to the same address, where nobody listens now).
    await assert.rejects(source.call("echo", { text: "after" }, { signal: never }));
    assert.match(
      warnings[0] ?? "",
      /^upstream server mcp\.scripted stopped answering \(the stream of an answer broke/,
    );
  } finally {
    await source.close();
    await server.stop();
  }
});

Deno.test("an HTTP upstream whose stream ends without the answer fails the call at once", async () => {
  const server = await startScriptedHttpServer(["--quiet"]);
  const { source } = sourceOn(server);
  try {
    // `stray` answers another request's id, and its stream ends after that.
    await assert.rejects(
      source.call("stray", {}, { signal: never }),
      (error) =>
        error instanceof ToolLostError &&
        error.message ===
          "upstream server mcp.scripted stopped answering (the stream of an answer ended without it) during the call",
    );
  } finally {
    await source.close();
    await server.stop();
  }
});

Deno.test("closing an HTTP upstream source ends its session with a DELETE; a cancelled call's ended stream is no fault", async () => {
  const server = await startScriptedHttpServer();
  const { source, warnings } = sourceOn(server);
  try {
    const controller = new AbortController();
    const waiting = source.call("wait", {}, { signal: controller.signal });
    await server.announcements.starts.reached(1);
    controller.abort(new DOMException("enough", "AbortError"));
    await assert.rejects(waiting, { name: "AbortError" });
    await server.announcements.stops.reached(1);
    assert.equal(
      (await source.call("echo", { text: "still" }, { signal: never })).content[0]?.text,
      "still",
    );
    assert.deepEqual(warnings, [], "the same session goes on");
    assert.deepEqual(server.announcements.deleted, []);
    await source.close();
    await server.announcements.deletions.reached(1);
    assert.deepEqual(server.announcements.deleted, ["s1"]);
  } finally {
    await source.close();
    await server.stop();
  }
});
