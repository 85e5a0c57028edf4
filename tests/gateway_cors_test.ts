/**
 * A web page of an allowed origin can use `spillway serve --http`: its
 * browser's preflight is answered (204, the origin, the methods, MCP's
 * headers, a max age), every answer names the origin and exposes the
 * session id, and pages of other origins are still refused (403). Checked
 * with raw requests, then with a real browser: a page served on another
 * loopback port initializes, lists the tools and calls one with `fetch` in
 * headless Chromium.
 */

import assert from "node:assert/strict";
import { BROWSER_IGNORED_NOTE, IGNORE_BROWSER_TESTS, launchChromium } from "./_chromium.ts";
import { INITIALIZE_REQUEST, startHttpGateway } from "./gateway_fixtures.ts";
import {
  CORS_EXPOSED_HEADERS,
  CORS_MAX_AGE_SECONDS,
  CORS_METHODS,
  CORS_REQUEST_HEADERS,
} from "../src/gateway/cors.ts";

const APP = "https://app.example.com";

const preflight = (url: URL, origin: string) =>
  fetch(url, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization, content-type, mcp-session-id",
    },
  });

Deno.test("a preflight from an allowed origin is answered 204 with what the page may send", async () => {
  await using gw = await startHttpGateway({ http: { allowedOrigins: [APP] } });
  for (const origin of [APP, "http://127.0.0.1:5173", "http://localhost:3000"]) {
    const answer = await preflight(gw.serving.url, origin);
    await answer.body?.cancel();
    assert.equal(answer.status, 204, origin);
    assert.equal(answer.headers.get("access-control-allow-origin"), origin);
    assert.equal(answer.headers.get("access-control-allow-methods"), CORS_METHODS);
    assert.equal(answer.headers.get("access-control-allow-headers"), CORS_REQUEST_HEADERS);
    assert.equal(answer.headers.get("access-control-max-age"), String(CORS_MAX_AGE_SECONDS));
    assert.equal(answer.headers.get("vary"), "Origin");
  }
  assert.equal(
    CORS_REQUEST_HEADERS,
    "authorization, content-type, mcp-session-id, mcp-protocol-version, last-event-id",
  );
  const foreign = await preflight(gw.serving.url, "http://evil.example");
  assert.equal(foreign.status, 403);
  assert.equal(foreign.headers.get("access-control-allow-origin"), null);
  assert.equal((await foreign.json()).error.message, "Origin `http://evil.example` is not allowed");
  assert.equal(gw.gateway.sessions.length, 0);
});

Deno.test("every answer to an allowed origin names it and exposes the session id; others get none", async () => {
  await using gw = await startHttpGateway({ http: { allowedOrigins: [APP] } });
  const post = (headers: Record<string, string>) =>
    fetch(gw.serving.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify(INITIALIZE_REQUEST),
    });
  const ok = await post({ origin: APP, authorization: `Bearer ${gw.token}` });
  await ok.body?.cancel();
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get("access-control-allow-origin"), APP);
  assert.equal(ok.headers.get("access-control-expose-headers"), CORS_EXPOSED_HEADERS);
  assert.match(CORS_EXPOSED_HEADERS, /mcp-session-id/);
  assert.ok(ok.headers.get("mcp-session-id") !== null);
  // A refusal is readable by the page too: it can tell the user the token is wrong.
  const unauthorized = await post({ origin: APP });
  await unauthorized.body?.cancel();
  assert.equal(unauthorized.status, 401);
  assert.equal(unauthorized.headers.get("access-control-allow-origin"), APP);
  // Without an Origin (not a browser page), nothing changes.
  const plain = await post({ authorization: `Bearer ${gw.token}` });
  await plain.body?.cancel();
  assert.equal(plain.headers.get("access-control-allow-origin"), null);
  const foreign = await post({
    origin: "https://app.example.com.evil",
    authorization: `Bearer ${gw.token}`,
  });
  await foreign.body?.cancel();
  assert.equal(foreign.status, 403);
  assert.equal(gw.gateway.sessions.length, 2, "only the two sessions with the token were opened");
});

/** What the page reports after talking to the gateway. */
interface PageReport {
  readonly sessionId: string | null;
  readonly protocolVersion: string | null;
  readonly tools: string[];
  readonly text: string;
  readonly deleted: number;
}

Deno.test({
  name:
    `a page on another loopback port initializes, lists and calls a tool with fetch, in headless Chromium${BROWSER_IGNORED_NOTE}`,
  ignore: IGNORE_BROWSER_TESTS,
  async fn() {
    await using gw = await startHttpGateway();
    // The page's own server: another port, so another origin.
    await using site = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () =>
        new Response("<!doctype html><title>app</title><p>app</p>", {
          headers: { "content-type": "text/html" },
        }),
    );
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${site.addr.port}/`);
      const report: PageReport = await page.evaluate(async ({ url, token }) => {
        let sessionId: string | null = null;
        let protocolVersion: string | null = null;
        const send = async (message: Record<string, unknown>) => {
          const headers: Record<string, string> = {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          };
          if (sessionId !== null) headers["mcp-session-id"] = sessionId;
          if (protocolVersion !== null) headers["mcp-protocol-version"] = protocolVersion;
          const response = await fetch(url, {
            method: "POST",
            headers,
            body: JSON.stringify(message),
          });
          sessionId ??= response.headers.get("mcp-session-id");
          const text = await response.text();
          if (text === "") return undefined;
          // An answer comes as JSON or as one server-sent event.
          const data = text.split("\n").find((line) => line.startsWith("data: "));
          return JSON.parse(data === undefined ? text : data.slice(6));
        };
        const init = await send({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "page", version: "1" },
          },
        });
        protocolVersion = init.result.protocolVersion;
        await send({ jsonrpc: "2.0", method: "notifications/initialized" });
        const listed = await send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
        const called = await send({
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: { name: "test_simple_text", arguments: {} },
        });
        const deleted = await fetch(url, {
          method: "DELETE",
          headers: {
            authorization: `Bearer ${token}`,
            "mcp-session-id": sessionId ?? "",
            "mcp-protocol-version": protocolVersion ?? "",
          },
        });
        return {
          sessionId,
          protocolVersion,
          tools: listed.result.tools.map((tool: { name: string }) => tool.name),
          text: called.result.content[0].text,
          deleted: deleted.status,
        };
      }, { url: gw.serving.url.href, token: gw.token ?? "" });
      assert.match(report.sessionId ?? "", /^[0-9a-f-]{36}$/, "the page read the session id");
      assert.equal(report.protocolVersion, "2025-06-18");
      assert.ok(report.tools.includes("test_simple_text"), report.tools.join(", "));
      assert.equal(report.text, "This is a simple text response for testing.");
      assert.equal(report.deleted, 200);
      const events = await gw.events();
      assert.deepEqual(events.map((e) => e.type), [
        "session_start",
        "tool_call_request",
        "tool_call_response",
      ]);
    } finally {
      await browser.close();
    }
  },
});
