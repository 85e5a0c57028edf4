/**
 * CORS for `spillway serve --http`: what lets a web page of an allowed
 * origin (a loopback one, or one of `serve.allowed_origins`) call the
 * gateway with `fetch`. A browser first asks (a preflight, `OPTIONS`
 * without the token) whether the page may send the token and MCP's headers;
 * then it lets the page read a response only if it names the page's origin,
 * and read the session id only if it is exposed. Pages of other origins are
 * refused before any of this (`checkAccess`, 403).
 *
 * @module
 */

/** The methods MCP's Streamable HTTP transport uses. */
export const CORS_METHODS = "GET, POST, DELETE, OPTIONS";

/** The request headers a page may send: the token, the JSON body's type, and MCP's own. */
export const CORS_REQUEST_HEADERS =
  "authorization, content-type, mcp-session-id, mcp-protocol-version, last-event-id";

/** The response headers a page may read beside the basic ones. */
export const CORS_EXPOSED_HEADERS = "mcp-session-id, mcp-protocol-version, www-authenticate";

/**
 * How long a browser may keep a preflight's answer, in seconds: 10 minutes
 * (Chromium keeps it at most 2 hours, Firefox a day).
 */
export const CORS_MAX_AGE_SECONDS = 600;

/**
 * The answer to a preflight from `origin`, an origin already allowed: 204
 * with the methods and headers allowed, for {@linkcode CORS_MAX_AGE_SECONDS}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { corsPreflight } from "./cors.ts";
 * const answer = corsPreflight("http://127.0.0.1:5173");
 * assert.equal(answer.status, 204);
 * assert.equal(answer.headers.get("access-control-allow-origin"), "http://127.0.0.1:5173");
 * ```
 */
export function corsPreflight(origin: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": CORS_METHODS,
      "access-control-allow-headers": CORS_REQUEST_HEADERS,
      "access-control-max-age": String(CORS_MAX_AGE_SECONDS),
      vary: "Origin",
    },
  });
}

/**
 * `response` as a page of `origin` (already allowed) may read it: naming
 * the origin, and exposing the session id, the protocol version and the
 * token challenge. A streamed body passes through as it is.
 */
export function withCors(response: Response, origin: string): Response {
  const headers = new Headers(response.headers);
  headers.set("access-control-allow-origin", origin);
  headers.set("access-control-expose-headers", CORS_EXPOSED_HEADERS);
  headers.append("vary", "Origin");
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}
