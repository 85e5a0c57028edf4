/**
 * {@linkcode McpUpstreamSource} over Streamable HTTP against the scripted
 * server (`--http`), which answers each request on an event stream of its
 * own: the tool source contract, a server that dies while a call's stream
 * is open (the call fails at once, not at its timeout), and the session
 * ended with an HTTP DELETE when the source closes.
 */

import assert from "node:assert/strict";
import { SpillwayError } from "../src/errors/spillway_error.ts";
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

defineToolSourceContract("McpUpstreamSource over HTTP", async ({ clock }) => {
  const server = await startScriptedHttpServer();
  const source = new McpUpstreamSource({
    name: "mcp.scripted",
    url: server.url,
    timeoutFor: (tool) => tool === "hang" ? CONTRACT_TIMEOUT_MS : DEFAULT_TOOL_TIMEOUT_MS,
    clock,
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

Deno.test("an HTTP upstream's reply that names no request fails every call waiting at once", async () => {
  const server = await startScriptedHttpServer();
  // The default timeout (120 s) would outlast the test: only the reply can end these calls.
  const { source, warnings } = sourceOn(server);
  const reply = '"{\\"jsonrpc\\":\\"2.0\\",\\"error\\":{\\"code\\":-32600,' +
    '\\"message\\":\\"Invalid Request\\"}}"';
  const failsWith = (tool: string) => (error: unknown) =>
    error instanceof SpillwayError && error.code === "malformed_result" &&
    error.message ===
      `mcp.scripted returned a malformed result for \`${tool}\`: a reply that names no ` +
        `request: ${reply}; it cannot be matched to one call, so every call waiting fails`;
  try {
    const hanging = source.call("hang", {}, { signal: never });
    await server.announcements.starts.reached(1);
    const [hang, idless] = await Promise.allSettled([
      hanging,
      source.call("idless", { text: "no id" }, { signal: never }),
    ]);
    assert.ok(hang.status === "rejected" && failsWith("hang")(hang.reason), String(hang));
    assert.ok(idless.status === "rejected" && failsWith("idless")(idless.reason), String(idless));
    // The session goes on: no stream was left owing an answer.
    assert.equal(
      (await source.call("echo", { text: "after" }, { signal: never })).content[0]?.text,
      "after",
    );
    assert.deepEqual(warnings, []);
  } finally {
    await source.close();
    await server.stop();
  }
});
