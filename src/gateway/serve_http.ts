/**
 * `spillway serve --http [HOST:]PORT`: MCP's Streamable HTTP transport at
 * `/mcp` on `Deno.serve`, for both protocol eras on the one endpoint. A
 * 2025 client has a session (the `Mcp-Session-Id` header): POST carries
 * requests, GET opens the stream of server-to-client messages, DELETE ends
 * the session. A 2026-07-28 request (its `_meta` names that revision, or
 * its `MCP-Protocol-Version` header does) has none: it goes to
 * {@linkcode ModernFront}, which finds its conversation. Every request passes
 * {@linkcode checkAccess} first, so a request without a client's token
 * reaches no tool, and a session answers only the client that opened it:
 * any other client's token gets the 404 of an unknown id, so ids cannot be
 * probed. Every POST body is read within `maxRequestBytes` and a deadline
 * ({@linkcode readRequestBody}), with a session or without; pages of
 * allowed origins get CORS answers ({@linkcode corsPreflight}). Sessions
 * are bounded in number and closed when idle ({@linkcode HttpSessions}).
 *
 * @module
 */

import { isInitializeRequest, PROTOCOL_VERSION_META_KEY } from "../service/sdk.ts";
import { ModernFront } from "./modern_front.ts";
import type { InputRoundsOptions } from "./input_rounds.ts";
import { ByteSize } from "../size/byte_size.ts";
import { Duration } from "../config/duration.ts";
import {
  DEFAULT_MAX_REQUEST_SIZE,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_TIMEOUT,
} from "../config/serve_config.ts";
import type { Gateway } from "./gateway.ts";
import { allowedOrigin, checkAccess, isLoopback } from "./http_access.ts";
import { type ClientToken, ClientTokens } from "./client_tokens.ts";
import { DEFAULT_CLIENT } from "../config/serve_config.ts";
import { corsPreflight, withCors } from "./cors.ts";
import { BODY_TIMEOUT_MS, readRequestBody } from "./read_request_body.ts";
import { HttpSessions } from "./http_sessions.ts";
import { reasonText } from "../errors/reason_text.ts";
import { sanitizeForTerminal } from "../terminal/sanitize.ts";

/** The path clients connect to. */
export const MCP_PATH = "/mcp";

/** Options of {@linkcode serveHttp}. */
export interface ServeHttpOptions {
  /** The address to bind. */
  readonly hostname: string;
  /** The port; 0 picks a free one. */
  readonly port: number;
  /**
   * The default client's bearer token; `undefined`, with no `clients`
   * either, turns authentication off (loopback only): every request is then
   * the default client's.
   */
  readonly token: string | undefined;
  /** The other clients and their tokens (`[serve.tokens.NAME]`). Default: none. */
  readonly clients?: readonly ClientToken[];
  /** Origins allowed besides loopback ones. Default: none. */
  readonly allowedOrigins?: readonly string[];
  /**
   * The largest POST body, in bytes (`serve.max_request_size`); a larger one
   * is answered 413 unread. Default: {@linkcode DEFAULT_MAX_REQUEST_SIZE}.
   */
  readonly maxRequestBytes?: number;
  /** How long a POST body may take to arrive. Default: {@linkcode BODY_TIMEOUT_MS}. */
  readonly bodyTimeoutMs?: number;
  /**
   * How many sessions at once (`serve.max_sessions`); an `initialize` past
   * it is answered 503. Default: {@linkcode DEFAULT_MAX_SESSIONS}.
   */
  readonly maxSessions?: number;
  /**
   * How long a session may go without a request before it is closed, in ms
   * (`serve.session_idle_timeout`). Default: {@linkcode DEFAULT_SESSION_IDLE_TIMEOUT}.
   */
  readonly sessionIdleTimeoutMs?: number;
  /**
   * The limits of 2026-07-28 calls waiting for their client's input
   * (`serve.input_timeout`, `max_input_waits`, `max_input_size`). Default:
   * {@linkcode DEFAULT_INPUT_ROUNDS}.
   */
  readonly inputs?: InputRoundsOptions;
}

/** A listening gateway. */
export interface HttpServing {
  /** The URL clients connect to (`http://127.0.0.1:PORT/mcp`). */
  readonly url: URL;
  /** Stops listening and disconnects every session. */
  close(): Promise<void>;
}

/**
 * Serves `gateway` over Streamable HTTP.
 *
 * @throws {TypeError} when `token` is undefined and `hostname` is not loopback
 */
export async function serveHttp(
  gateway: Gateway,
  options: ServeHttpOptions,
): Promise<HttpServing> {
  const loopback = isLoopback(options.hostname);
  const clients = [
    ...(options.token === undefined ? [] : [{ client: DEFAULT_CLIENT, token: options.token }]),
    ...(options.clients ?? []),
  ];
  if (clients.length === 0 && !loopback) {
    throw new TypeError(
      `--no-auth is refused on \`${options.hostname}\`: without a token anyone who can reach ` +
        `that address can run your tools. Bind a loopback address (127.0.0.1) or keep the token`,
    );
  }
  const policy = {
    tokens: clients.length === 0 ? undefined : new ClientTokens(clients),
    loopback,
    ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
  };
  const maxBytes = options.maxRequestBytes ?? ByteSize.parse(DEFAULT_MAX_REQUEST_SIZE).bytes;
  const tooLarge = jsonError(413, tooLargeMessage(maxBytes));
  const bodyTimeoutMs = options.bodyTimeoutMs ?? BODY_TIMEOUT_MS;
  /** A POST's body, parsed as JSON, or the answer refusing it. */
  const readJson = async (request: Request): Promise<{ json: unknown } | Response> => {
    const body = await readRequestBody(request, { maxBytes, timeoutMs: bodyTimeoutMs });
    switch (body.kind) {
      case "too_large":
        return tooLarge.clone();
      case "timed_out":
        return jsonError(408, `the request body did not arrive within ${bodyTimeoutMs / 1000} s`);
      case "broken":
        return jsonError(400, "the request body was cut off");
    }
    try {
      return { json: JSON.parse(new TextDecoder().decode(body.bytes)) };
    } catch {
      // Not JSON: each path says it the way it always has.
      return request.headers.has("mcp-session-id")
        ? jsonError(400, "Parse error: Invalid JSON", -32700)
        : jsonError(400, "the request body is not JSON");
    }
  };
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const idleTimeoutMs = options.sessionIdleTimeoutMs ??
    Duration.parse(DEFAULT_SESSION_IDLE_TIMEOUT).ms;
  const sessions = new HttpSessions(gateway, { maxSessions, idleTimeoutMs });
  const modern = new ModernFront(gateway, {
    maxConversations: maxSessions,
    idleTimeoutMs,
    ...(options.inputs === undefined ? {} : { inputs: options.inputs }),
  });

  const route = async (request: Request): Promise<Response> => {
    // The Host is checked before anything reads the URL built from it.
    const client = checkAccess(request, policy);
    if (client instanceof Response) return client;
    if (new URL(request.url).pathname !== MCP_PATH) {
      return new Response(`not found: MCP is served at ${MCP_PATH}\n`, { status: 404 });
    }
    if (request.method === "OPTIONS") {
      const origin = allowedOrigin(request, policy);
      return origin === undefined
        ? new Response(null, { status: 204, headers: { allow: "GET, POST, DELETE, OPTIONS" } })
        : corsPreflight(origin);
    }
    const sessionId = request.headers.get("mcp-session-id");
    // Another client's session is as unknown as one that never was: ids cannot be probed.
    const session = sessionId === null ? undefined : sessions.transport(sessionId, client);
    if (sessionId !== null && session === undefined) {
      return jsonError(404, "unknown or ended session");
    }
    if (request.method !== "POST") {
      if (session === undefined) return jsonError(400, "no session: initialize first");
      sessions.touch(sessionId as string);
      return await session.handleRequest(request);
    }
    // Every POST, of a session or not, is read within the limit before anything parses it.
    const read = await readJson(request);
    if (read instanceof Response) return read;
    if (session !== undefined) {
      // A call leaves the session's idle state by itself; anything else says the client is there.
      if (!isToolCall(read.json)) sessions.touch(sessionId as string);
      return await session.handleRequest(request, { parsedBody: read.json });
    }
    const body = read.json;
    if (isModernRequest(request, body)) return await modern.handle(request, body, client);
    if (!isInitializeRequest(body)) return jsonError(400, "no session: initialize first");
    return await sessions.open(request, body, client);
  };

  const handle = async (request: Request): Promise<Response> => {
    const response = await route(request);
    // A page of an allowed origin may read every answer, refusals included.
    const origin = allowedOrigin(request, policy);
    return origin === undefined || request.method === "OPTIONS"
      ? response
      : withCors(response, origin);
  };

  const listening = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    onListen: (addr) => listening.resolve(addr),
    // The answer names no detail (an error may quote a request, a header, a
    // token); spillway's own stderr has it: an internal error is a bug to report.
    onError: (error) => {
      console.error(
        sanitizeForTerminal(
          `spillway serve: internal error answering a request: ${
            error instanceof Error ? (error.stack ?? error.message) : reasonText(error)
          }`,
        ),
      );
      return jsonError(500, "internal error (spillway's stderr says what)", -32603);
    },
  }, handle);
  const addr = await listening.promise;
  {
    const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
    let closing: Promise<void> | undefined;
    return {
      url: new URL(`http://${host}:${addr.port}${MCP_PATH}`),
      close: () => {
        closing ??= (async () => {
          await Promise.all([sessions.close(), modern.close()]);
          await server.shutdown();
        })();
        return closing;
      },
    };
  }
}

/**
 * Whether a POST without a session is a 2026-07-28 message: its `_meta`
 * names a protocol revision (the per-request envelope), or its
 * `MCP-Protocol-Version` header names one from 2026 on. (The modern handler
 * answers a malformed one; a 2025 client's first POST is its `initialize`.)
 */
function isModernRequest(request: Request, body: unknown): boolean {
  const header = request.headers.get("mcp-protocol-version");
  if (header !== null && header >= "2026") return true;
  if (typeof body !== "object" || body === null) return false;
  const params = (body as { params?: unknown }).params;
  const meta = typeof params === "object" && params !== null
    ? (params as { _meta?: unknown })._meta
    : undefined;
  return typeof meta === "object" && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
}

/** Whether a POST's body is one `tools/call` request. */
function isToolCall(body: unknown): boolean {
  return typeof body === "object" && body !== null &&
    (body as { method?: unknown }).method === "tools/call";
}

function jsonError(status: number, message: string, code = -32000): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }),
    { status, headers: { "content-type": "application/json" } },
  );
}

/** The 413 answer's message: the limit, and the setting that raises it. */
function tooLargeMessage(maxBytes: number): string {
  const size = ByteSize.fromBytes(maxBytes);
  return `the request body is larger than ${size.human()}, the most spillway serve takes ` +
    `(serve.max_request_size = "${size.toString()}"): send less, or raise the setting`;
}
