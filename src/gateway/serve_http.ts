/**
 * `spillway serve --http [HOST:]PORT`: MCP's Streamable HTTP transport at
 * `/mcp` on `Deno.serve`, one session per client (the `Mcp-Session-Id`
 * header): POST carries requests, GET opens the stream of server-to-client
 * messages, DELETE ends the session. Every request passes
 * {@linkcode checkAccess} first, so a request without the token reaches no
 * tool.
 *
 * @module
 */

import { isInitializeRequest, WebStandardStreamableHTTPServerTransport } from "../service/sdk.ts";
import type { Gateway } from "./gateway.ts";
import { checkAccess, isLoopback } from "./http_access.ts";
import { reasonText } from "../errors/reason_text.ts";

/** The path clients connect to. */
export const MCP_PATH = "/mcp";

/** Options of {@linkcode serveHttp}. */
export interface ServeHttpOptions {
  /** The address to bind. */
  readonly hostname: string;
  /** The port; 0 picks a free one. */
  readonly port: number;
  /** The bearer token; `undefined` turns authentication off (loopback only). */
  readonly token: string | undefined;
  /** Origins allowed besides loopback ones. Default: none. */
  readonly allowedOrigins?: readonly string[];
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
  if (options.token === undefined && !loopback) {
    throw new TypeError(
      `--no-auth is refused on \`${options.hostname}\`: without a token anyone who can reach ` +
        `that address can run your tools. Bind a loopback address (127.0.0.1) or keep the token`,
    );
  }
  const policy = {
    token: options.token,
    loopback,
    ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
  };
  const transports = new Map<string, WebStandardStreamableHTTPServerTransport>();

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname !== MCP_PATH) {
      return new Response(`not found: MCP is served at ${MCP_PATH}\n`, { status: 404 });
    }
    const refused = checkAccess(request, policy);
    if (refused !== undefined) return refused;
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const transport = transports.get(sessionId);
      if (transport === undefined) return jsonError(404, "unknown or ended session");
      return await transport.handleRequest(request);
    }
    if (request.method !== "POST") return jsonError(400, "no session: initialize first");
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return jsonError(400, "the request body is not JSON");
    }
    if (!isInitializeRequest(body)) return jsonError(400, "no session: initialize first");
    const id = crypto.randomUUID();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: (sid) => void transports.set(sid, transport),
      onsessionclosed: (sid) => void transports.delete(sid),
    });
    try {
      await gateway.connect(transport, id);
    } catch (error) {
      // The gateway is shutting down: no new session.
      return jsonError(503, reasonText(error));
    }
    return await transport.handleRequest(request, { parsedBody: body });
  };

  const listening = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    onListen: (addr) => listening.resolve(addr),
    onError: (error) => jsonError(500, `internal error: ${reasonText(error)}`),
  }, handle);
  const addr = await listening.promise;
  {
    const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
    let closing: Promise<void> | undefined;
    return {
      url: new URL(`http://${host}:${addr.port}${MCP_PATH}`),
      close: () => {
        closing ??= (async () => {
          await Promise.allSettled([...transports.values()].map((t) => t.close()));
          transports.clear();
          await server.shutdown();
        })();
        return closing;
      },
    };
  }
}

function jsonError(status: number, message: string): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }),
    { status, headers: { "content-type": "application/json" } },
  );
}
