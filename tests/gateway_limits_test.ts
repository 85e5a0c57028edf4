/**
 * What a client sends `spillway serve --http` is bounded. Every POST, with
 * a session or without, is refused with 413 past `serve.max_request_size`
 * (the message names the limit and the setting), and the body is never
 * held past the limit: a 200 MB POST leaves the gateway's RSS within 64 MB
 * of idle, whether it declares its length, lies about it or sends none.
 * A body that trickles is cut off at its deadline; connections whose
 * headers never end do not keep the gateway from serving others; a `Host`
 * header that is no host is answered 400, never 500.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { withTestSeed } from "../src/testing/seed.ts";
import {
  INITIALIZE_REQUEST,
  postInitialize,
  spawnHttpServe,
  startHttpGateway,
  textOf,
} from "./gateway_fixtures.ts";
import { procStatusBytes, rawRequest, resetPeakRss, streamBody } from "./_raw_http.ts";

const MB = 1024 * 1024;

/** The 413 answer's message at the default limit (exact: clients and people read it). */
const TOO_LARGE_4MB =
  'the request body is larger than 4.0 MB, the most spillway serve takes (serve.max_request_size = "4MB"): send less, or raise the setting';

const linux = Deno.build.os === "linux";

Deno.test({
  name:
    "serve --http: a 200 MB POST without a session is refused with 413, and RSS stays within 64 MB of idle",
  ignore: !linux,
  async fn() {
    await using serve = await spawnHttpServe([], { env: { SPILLWAY_SERVE_TOKEN: TOKEN } });
    const url = serve.url as URL;
    const pid = serve.child.pid;
    // Idle: started, one session served, nothing in flight.
    const hello = await postInitialize(url, { authorization: `Bearer ${TOKEN}` });
    assert.equal(hello.status, 200);
    await hello.body?.cancel();
    const idle = await procStatusBytes(pid, "VmRSS");
    const headers = [
      `Authorization: Bearer ${TOKEN}`,
      "Content-Type: application/json",
      "Accept: application/json, text/event-stream",
    ];
    const cases = [
      { what: "no Content-Length", extra: ["Transfer-Encoding: chunked"], chunked: true },
      { what: "its Content-Length", extra: [`Content-Length: ${200 * MB}`], chunked: false },
    ];
    for (const { what, extra, chunked } of cases) {
      const reset = await resetPeakRss(pid);
      const { response, sentBytes } = await streamBody(url, [...headers, ...extra], {
        totalBytes: 200 * MB,
        chunked,
      });
      assert.equal(response.status, 413, `${what}: ${response.body}`);
      assert.deepEqual(JSON.parse(response.body), {
        jsonrpc: "2.0",
        error: { code: -32000, message: TOO_LARGE_4MB },
        id: null,
      });
      const peak = await procStatusBytes(pid, reset ? "VmHWM" : "VmRSS");
      console.log(
        `200 MB POST with ${what}: 413 after ${(sentBytes / MB).toFixed(1)} MB sent; ` +
          `RSS idle ${(idle / MB).toFixed(1)} MB, ${reset ? "peak" : "after"} ${
            (peak / MB).toFixed(1)
          } MB`,
      );
      assert.ok(peak - idle < 64 * MB, `${what}: peak ${peak} vs idle ${idle}`);
    }
    // No session came of it.
    await assert.rejects(Deno.stat(`${serve.workspace}/conversations/x`), Deno.errors.NotFound);
  },
});

const TOKEN = "limits-token-0123456789";

Deno.test("a POST over max_request_size is refused with 413, with a session or without; one at the limit passes", async () => {
  await using gw = await startHttpGateway({ http: { maxRequestBytes: 2048 } });
  const headers = { authorization: `Bearer ${gw.token}` };
  const padded = (bytes: number) => {
    const base = JSON.stringify({
      ...INITIALIZE_REQUEST,
      params: { ...INITIALIZE_REQUEST.params },
    });
    const request = { ...INITIALIZE_REQUEST, params: { ...INITIALIZE_REQUEST.params, pad: "" } };
    request.params.pad = "x".repeat(bytes - base.length - ',"pad":""'.length);
    const body = JSON.stringify(request);
    assert.equal(body.length, bytes);
    return body;
  };
  const post = (body: string, extra: Record<string, string> = {}) =>
    fetch(gw.serving.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
        ...extra,
      },
      body,
    });
  const over = await post(padded(2049));
  assert.equal(over.status, 413);
  assert.equal(
    (await over.json()).error.message,
    'the request body is larger than 2.0 KB, the most spillway serve takes (serve.max_request_size = "2KB"): send less, or raise the setting',
  );
  assert.equal(gw.gateway.sessions.length, 0, "no session for a refused initialize");
  const at = await post(padded(2048));
  assert.equal(at.status, 200);
  const sessionId = at.headers.get("mcp-session-id");
  await at.body?.cancel();
  assert.ok(sessionId !== null);
  const session = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" };
  const call = (bytes: number) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "test_simple_text", arguments: { pad: "y".repeat(bytes) } },
    });
  const big = await post(call(4096), session);
  assert.equal(big.status, 413);
  assert.match((await big.json()).error.message, /serve\.max_request_size = "2KB"/);
  // The session lives on: a call within the limit is answered.
  const client = await gw.client();
  assert.equal(
    textOf(await client.callTool({ name: "test_simple_text", arguments: {} })) !== "",
    true,
  );
});

Deno.test("a POST body that trickles is cut off at its deadline with 408", async () => {
  await using gw = await startHttpGateway({ http: { bodyTimeoutMs: 200 } });
  const url = gw.serving.url;
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  try {
    const head =
      `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${gw.token}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":';
    await conn.write(new TextEncoder().encode(head));
    // Nothing more is sent: the answer comes when the deadline passes.
    const buffer = new Uint8Array(4096);
    const n = await conn.read(buffer);
    const text = new TextDecoder().decode(buffer.subarray(0, n ?? 0));
    assert.match(text, /^HTTP\/1\.1 408/);
    assert.match(text, /the request body did not arrive within 0\.2 s/);
  } finally {
    conn.close();
  }
});

Deno.test("connections whose headers never end do not keep the gateway from serving others", async () => {
  await using gw = await startHttpGateway();
  const url = gw.serving.url;
  const stalled: Deno.Conn[] = [];
  try {
    for (let i = 0; i < 200; i++) {
      const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
      stalled.push(conn);
      await conn.write(
        new TextEncoder().encode(`POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nX-Slow: `),
      );
    }
    const client = await gw.client();
    const result = await client.callTool({ name: "test_simple_text", arguments: {} });
    assert.notEqual(textOf(result), "");
  } finally {
    for (const conn of stalled) conn.close();
  }
});

Deno.test("a Host header that is no host is answered 400, a foreign one 403, never 500", async () => {
  await using gw = await startHttpGateway();
  const url = gw.serving.url;
  const statusFor = async (host: string) => {
    const response = await rawRequest(
      url,
      `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${gw.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 2`,
      "{}",
    );
    return response;
  };
  for (
    const host of ["[::1]evil.example", "garbage value", "[::1", "a:b:c", "127.0.0.1:99999", "%00"]
  ) {
    const response = await statusFor(host);
    assert.equal(response.status, 400, `Host: ${host} → ${response.status} ${response.body}`);
    assert.match(
      JSON.parse(response.body).error.message,
      /^Host `.*` is not a host name \(expected HOST\[:PORT\]\)$/,
    );
  }
  const foreign = await statusFor("evil.example");
  assert.equal(foreign.status, 403);
  assert.equal(
    JSON.parse(foreign.body).error.message,
    "Host `evil.example` is not a loopback name: refused (DNS rebinding guard)",
  );
  assert.equal(
    (await statusFor("[::1]:8080")).status,
    400,
    "a well-formed loopback Host reaches the body check",
  );
});

Deno.test("hostile Host headers never get a 500 (seeded)", async () => {
  await using gw = await startHttpGateway();
  const url = gw.serving.url;
  await withTestSeed(async (seed) => {
    const statuses = new Map<number, number>();
    // Printable bytes, brackets and colons often: the shapes a Host parser trips on.
    const hostChar = fc.oneof(
      fc.constantFrom("[", "]", ":", ".", "@", "%", " ", "1", "a", "-", "_"),
      fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
    );
    const hosts = fc.sample(
      fc.array(hostChar, { minLength: 1, maxLength: 30 }).map((c) => c.join("")),
      {
        seed,
        numRuns: 60,
      },
    );
    for (const host of hosts) {
      const response = await rawRequest(
        url,
        `GET /mcp HTTP/1.1\r\nHost: ${
          host.trim() === "" ? "x" : host
        }\r\nAuthorization: Bearer ${gw.token}`,
      );
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      assert.ok(
        response.status < 500 || Number.isNaN(response.status),
        `Host: ${host} → ${response.status}`,
      );
    }
    assert.ok(
      (statuses.get(400) ?? 0) >= 20,
      `only ${statuses.get(400)} of 60 hosts reached the 400 branch`,
    );
  });
});

Deno.test("a 2026-07-28 request is its client's and bounded alike: 401 without the token, 413 past max_request_size, 403 for a foreign Origin", async () => {
  await using gw = await startHttpGateway({ http: { maxRequestBytes: 2048 } });
  const call = (pad: number) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "test_simple_text",
        arguments: { pad: "y".repeat(pad) },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    });
  const post = (body: string, headers: Record<string, string>) =>
    fetch(gw.serving.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "test_simple_text",
        ...headers,
      },
      body,
    });
  const bearer = { authorization: `Bearer ${gw.token}` };
  const anonymous = await post(call(10), {});
  assert.equal(anonymous.status, 401);
  await anonymous.body?.cancel();
  const big = await post(call(4096), bearer);
  assert.equal(big.status, 413);
  assert.match((await big.json()).error.message, /serve\.max_request_size = "2KB"/);
  const foreign = await post(call(10), { ...bearer, origin: "https://evil.example" });
  assert.equal(foreign.status, 403);
  await foreign.body?.cancel();
  // Within the limits, with the token: answered in one JSON body.
  const ok = await post(call(10), bearer);
  assert.equal(ok.status, 200);
  assert.match(ok.headers.get("content-type") ?? "", /^application\/json/);
  const answer = await ok.json();
  assert.equal(answer.id, 1);
  assert.equal(answer.result.isError ?? false, false);
});
