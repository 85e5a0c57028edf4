/**
 * `spillway serve --http` in front of a real upstream (the conformance
 * server over stdio), with real SDK clients: results are capped with the
 * exact marker and recorded exactly as delivered; uncut results keep their
 * non-text content; requests without the token or from a foreign origin
 * reach no tool.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { serveHttp } from "../src/gateway/serve_http.ts";
import {
  type HttpGateway,
  postInitialize,
  startHttpGateway,
  textOf,
  upstreamConfig,
} from "./gateway_fixtures.ts";

const MARKER_3MB = "\n... [truncated, 3.0 MB → 256.0 KB]";

Deno.test("an SDK client over HTTP gets a 3 MB result capped, exactly as recorded", async () => {
  await using gw: HttpGateway = await startHttpGateway();
  const client = await gw.client();
  const result = await client.callTool({ name: "big", arguments: { bytes: 3 * 1024 * 1024 } });
  const text = textOf(result);
  assert.ok(text.endsWith(MARKER_3MB), text.slice(-80));
  assert.equal(new TextEncoder().encode(text).length, 262_144);
  assert.deepEqual(gw.notices.map((n) => [n.tool, n.cause, n.capBytes, n.originalBytes]), [
    ["big", "size_threshold", 262_144, 3 * 1024 * 1024],
  ]);
  const events = await gw.events();
  assert.deepEqual(events.map((e) => e.type), [
    "session_start",
    "tool_call_request",
    "tool_call_response",
  ]);
  const response = events[2];
  assert.ok(response?.type === "tool_call_response");
  assert.equal(response.content, text, "recorded == delivered, byte for byte");
  assert.equal(response.is_error, false);
});

Deno.test("an uncut result keeps its images and resources through the gateway", async () => {
  await using gw = await startHttpGateway();
  const client = await gw.client();
  const result = await client.callTool({ name: "test_multiple_content_types", arguments: {} });
  assert.deepEqual(
    (result.content as { type: string }[]).map((block) => block.type),
    ["text", "image", "resource"],
  );
  const audio = await client.callTool({ name: "test_audio_content", arguments: {} });
  assert.equal((audio.content as { type: string }[])[0]?.type, "audio");
  // Recorded as delivered, block by block: payloads by their size and digest.
  const events = await gw.events();
  const responses = events.filter((e) => e.type === "tool_call_response");
  assert.deepEqual(responses.map((e) => e.type === "tool_call_response" && e.content), [
    "Multiple content types test:\n[image: image/png, 69 B]\n" +
    "[resource: test://mixed-content-resource, application/json, 27 B]",
    "[audio: audio/wav, 44 B]",
  ]);
  const [mixed, sound] = responses.map((e) => e.type === "tool_call_response" && e.blocks);
  const [, image] = result.content as { data: string }[];
  assert.deepEqual(mixed && mixed[1], {
    type: "image",
    mime_type: "image/png",
    bytes: 69,
    digest: `sha256:${
      createHash("sha256").update(Buffer.from(image?.data ?? "", "base64")).digest("hex")
    }`,
  });
  assert.equal(sound && sound[0]?.type, "audio");
});

Deno.test("tools are listed with annotations and the result-size hint", async () => {
  // A builtin tool is served when the configuration names it.
  await using gw = await startHttpGateway({
    config: upstreamConfig("[conversation.tools.fs_read_file]\n"),
  });
  const client = await gw.client();
  const { tools } = await client.listTools();
  const big = tools.find((tool) => tool.name === "big");
  assert.deepEqual(big?.annotations, { readOnlyHint: true });
  assert.equal(big?._meta?.["anthropic/maxResultSizeChars"], 262_144);
  assert.deepEqual(big?.inputSchema.required, ["bytes"]);
  assert.ok(tools.some((tool) => tool.name === "fs_read_file"));
});

Deno.test("a request without the token gets 401 and runs no tool", async () => {
  await using gw = await startHttpGateway();
  const call = (headers: Record<string, string>) => postInitialize(gw.serving.url, headers);
  const none = await call({});
  assert.equal(none.status, 401);
  assert.equal(none.headers.get("www-authenticate"), "Bearer");
  await none.body?.cancel();
  const wrong = await call({ authorization: "Bearer nope" });
  assert.equal(wrong.status, 401);
  await wrong.body?.cancel();
  const foreign = await call({ authorization: "Bearer test-token", origin: "http://evil.example" });
  assert.equal(foreign.status, 403);
  await foreign.body?.cancel();
  // fetch() cannot set Host: a DNS-rebound page's request, sent by hand.
  assert.match(await rawStatusLine(gw.serving.url, "evil.example"), /^HTTP\/1\.1 403/);
  assert.equal(gw.gateway.sessions.length, 0, "no session was created");
  await assert.rejects(() => gw.client({ headers: { authorization: "Bearer nope" } }));
  assert.equal(gw.gateway.sessions.length, 0);
  await assert.rejects(Deno.stat(`${gw.workspace}/conversations`), Deno.errors.NotFound);
});

Deno.test("--no-auth is refused on a non-loopback address", async () => {
  await using gw = await startHttpGateway();
  await assert.rejects(
    () => serveHttp(gw.gateway, { hostname: "0.0.0.0", port: 0, token: undefined }),
    /--no-auth is refused on `0\.0\.0\.0`/,
  );
});

Deno.test("calls in flight together are one batch: 2 MiB spent largest first", async () => {
  await using gw = await startHttpGateway({
    config: (await import("./gateway_fixtures.ts")).upstreamConfig(
      `[conversation.tools.big]\nsize_threshold = "unlimited"\n`,
    ),
  });
  const client = await gw.client();
  const sizes = [1_500_000, 1_000_000, 100_000];
  const results = await Promise.all(
    // `gather`: the upstream answers once all three are in, so they are in flight together.
    sizes.map((bytes) => client.callTool({ name: "big", arguments: { bytes, gather: 3 } })),
  );
  const lengths = results.map((r) => new TextEncoder().encode(textOf(r)).length);
  assert.ok(lengths.reduce((a, b) => a + b) <= 2 * 1024 * 1024, `${lengths}`);
  assert.equal(lengths[2], 100_000, "the small one stays whole");
  assert.ok(textOf(results[0]).includes("[truncated, 1.4 MB →"));
  assert.ok(textOf(results[1]).includes("[truncated, 976.5 KB →"));
  assert.deepEqual(gw.notices.map((n) => n.cause), ["batch ceiling", "batch ceiling"]);
  const events = await gw.events();
  const recorded = events.flatMap((e) => e.type === "tool_call_response" ? [e.content] : []);
  assert.deepEqual(recorded, results.map(textOf));
});

/** Sends a POST with `Host: host` over a raw connection; returns the status line. */
async function rawStatusLine(url: URL, host: string): Promise<string> {
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  try {
    const body = "{}";
    const request = `POST ${url.pathname} HTTP/1.1\r\nHost: ${host}\r\n` +
      `Authorization: Bearer test-token\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
    await conn.write(new TextEncoder().encode(request));
    const buffer = new Uint8Array(256);
    const n = await conn.read(buffer);
    return new TextDecoder().decode(buffer.subarray(0, n ?? 0)).split("\r\n")[0] ?? "";
  } finally {
    conn.close();
  }
}

Deno.test("a tool with an output schema is listed with it; a cut result keeps a cut structured value that matches it, recorded as delivered", async () => {
  await using gw = await startHttpGateway();
  const client = await gw.client();
  const { tools } = await client.listTools();
  const structured = tools.find((tool) => tool.name === "structured");
  assert.deepEqual(structured?.outputSchema?.required, ["text", "bytes"]);
  // Whole: the upstream's structured content, checked by the SDK client against the schema.
  const small = await client.callTool({ name: "structured", arguments: { bytes: 100 } });
  assert.deepEqual(small.structuredContent, { text: textOf(small), bytes: 100 });
  assert.notEqual(small.isError, true);
  // Cut by the threshold: the text with its marker, and the structured content cut to the
  // same limit keeping both required members (the SDK client checked it against the schema).
  const cut = await client.callTool({ name: "structured", arguments: { bytes: 300_000 } });
  assert.ok(textOf(cut).endsWith("\n... [truncated, 292.9 KB → 256.0 KB]"), textOf(cut).slice(-60));
  assert.notEqual(cut.isError, true);
  const value = cut.structuredContent as { text: string; bytes: number };
  assert.equal(value.bytes, 300_000);
  assert.ok(textOf(small).length > 0 && textOf(cut).startsWith(value.text.slice(0, 1000)));
  const json = JSON.stringify(value);
  assert.ok(Buffer.byteLength(json) <= 262_144 && Buffer.byteLength(json) > 250_000);
  assert.deepEqual(gw.notices.map((n) => n.structured), [
    { originalBytes: 303_872, capBytes: 262_144 },
  ]);
  // Its _meta says the structured content was cut, and how much.
  assert.deepEqual(cut._meta, {
    "spillway/structuredContentCut": { originalBytes: 303_872, bytes: Buffer.byteLength(json) },
  });
  assert.equal(small._meta, undefined);
  // Recorded as delivered; a tool without an output schema is cut as before.
  const plain = await client.callTool({ name: "big", arguments: { bytes: 300_000 } });
  assert.notEqual(plain.isError, true);
  const responses = (await gw.events()).flatMap((e) =>
    e.type === "tool_call_response" ? [[e.content, e.is_error, e.structured_content]] : []
  );
  const digest = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;
  const smallJson = JSON.stringify(small.structuredContent);
  assert.deepEqual(responses, [
    [textOf(small), false, { bytes: smallJson.length, digest: digest(smallJson) }],
    [textOf(cut), false, { bytes: Buffer.byteLength(json), digest: digest(json) }],
    [textOf(plain), false, undefined],
  ]);
});

Deno.test("a call of a tool the gateway does not have is recorded in the session's conversation, answered as recorded", async () => {
  await using gw = await startHttpGateway();
  const client = await gw.client();
  const result = await client.callTool({ name: "no_such_tool", arguments: { a: 1 } });
  assert.equal(result.isError, true);
  const text = textOf(result);
  assert.match(text, /^tool no_such_tool is not available/);
  const [start, request, response, ...rest] = await gw.events();
  assert.equal(start?.type, "session_start");
  assert.ok(request?.type === "tool_call_request");
  assert.deepEqual([request.name, request.arguments], ["no_such_tool", { a: 1 }]);
  assert.deepEqual(response, {
    type: "tool_call_response",
    id: request.id,
    content: text,
    is_error: true,
  });
  assert.deepEqual(rest, []);
});

Deno.test("a DELETE ends the session: the gateway forgets it, and its id is refused afterwards", async () => {
  await using gw = await startHttpGateway();
  const client = await gw.client();
  await client.callTool({ name: "test_simple_text", arguments: {} });
  const [session] = gw.gateway.sessions;
  const sessionId = (client.transport as { sessionId?: string } | undefined)?.sessionId;
  assert.ok(session !== undefined && sessionId !== undefined);
  const headers = {
    authorization: `Bearer ${gw.token}`,
    "mcp-session-id": sessionId,
    "mcp-protocol-version": "2025-06-18",
  };
  const deleted = await fetch(gw.serving.url, { method: "DELETE", headers });
  await deleted.body?.cancel();
  assert.equal(deleted.status, 200);
  assert.deepEqual(gw.gateway.sessions, []);
  const after = await fetch(gw.serving.url, {
    method: "POST",
    headers: {
      ...headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
  });
  assert.equal(after.status, 404);
  assert.match(await after.text(), /unknown or ended session/);
  await client.close();
});
