/**
 * Who may talk to `spillway serve --http`, and as which client: a request
 * must carry a client's bearer token (unless the gateway runs with
 * `--no-auth`, which only a loopback address allows: then every request is
 * the default client's), and must not come from a web page on another origin.
 * A browser page can reach a loopback server by DNS rebinding (a hostile
 * name that resolves to 127.0.0.1), so a loopback gateway also insists on a
 * loopback `Host`, and any `Origin` header must be a loopback origin or one
 * the user allowed.
 *
 * @module
 */

import { DEFAULT_CLIENT } from "../config/serve_config.ts";
import type { ClientTokens } from "./client_tokens.ts";

/** Names a loopback address can be reached by. */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Whether `hostname` (as given to `--http`) is a loopback address. */
export function isLoopback(hostname: string): boolean {
  const bare = hostname.toLowerCase();
  return LOOPBACK_HOSTS.has(bare) || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** `HOST[:PORT]`: a name or IPv4 address, or an IPv6 address in brackets, then a port. */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?)(?::(\d{1,5}))?$/;

/**
 * The host part of a `Host` header (`localhost:8080` → `localhost`,
 * `[::1]:80` → `[::1]`), or `undefined` when the header is not `HOST[:PORT]`
 * (`[::1]evil.example`, `a b`, a port past 65535): such a request is refused
 * before anything reads its URL.
 */
function hostOf(header: string): string | undefined {
  const match = HOST_HEADER.exec(header.trim().toLowerCase());
  if (match === null || Number(match[2] ?? 0) > 65535) return undefined;
  return match[1];
}

/** The longest part of a refused header quoted back: the answer names it, not echoes it. */
const MAX_QUOTED_HEADER_CHARS = 100;

/** `value` as a refusal quotes it: escaped like a JSON string's content, and cut short. */
function quoted(value: string): string {
  const cut = value.length > MAX_QUOTED_HEADER_CHARS
    ? `${value.slice(0, MAX_QUOTED_HEADER_CHARS)}…`
    : value;
  return JSON.stringify(cut).slice(1, -1);
}

/** Options of {@linkcode checkAccess}. */
export interface AccessPolicy {
  /** The clients' tokens, one of which every request must carry; `undefined` under `--no-auth`. */
  readonly tokens: ClientTokens | undefined;
  /** Whether the gateway listens on a loopback address (then `Host` must be loopback too). */
  readonly loopback: boolean;
  /** Origins allowed besides loopback ones (`https://app.example`). Default: none. */
  readonly allowedOrigins?: readonly string[];
}

/**
 * The client `request` is from when it may go on (the one whose token it
 * carries; the default client under `--no-auth`), else the response refusing
 * it: 400 for a `Host` that is no host, 403 for a foreign `Host` or
 * `Origin`, 401 without a client's token. A preflight (`OPTIONS`) needs no
 * token: browsers send none with it, and its answer only says what the page
 * may send (it passes as the default client, and reaches no session).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ClientTokens } from "./client_tokens.ts";
 * import { checkAccess } from "./http_access.ts";
 * const policy = {
 *   tokens: new ClientTokens([{ client: "alice", token: "s3cret" }]),
 *   loopback: true,
 * };
 * const ok = new Request("http://127.0.0.1:7/mcp", { headers: { authorization: "Bearer s3cret" } });
 * assert.equal(checkAccess(ok, policy), "alice");
 * const anonymous = checkAccess(new Request("http://127.0.0.1:7/mcp"), policy);
 * assert.equal(anonymous instanceof Response && anonymous.status, 401);
 * const evil = new Request("http://127.0.0.1:7/mcp", {
 *   headers: { authorization: "Bearer s3cret", origin: "http://evil.example" },
 * });
 * const refused = checkAccess(evil, policy);
 * assert.equal(refused instanceof Response && refused.status, 403);
 * ```
 */
export function checkAccess(request: Request, policy: AccessPolicy): Response | string {
  const host = request.headers.get("host");
  const hostname = host === null ? undefined : hostOf(host);
  if (host !== null && hostname === undefined) {
    return refuse(400, `Host \`${quoted(host)}\` is not a host name (expected HOST[:PORT])`);
  }
  if (policy.loopback && hostname !== undefined && !isLoopback(hostname)) {
    return refuse(
      403,
      `Host \`${quoted(host ?? "")}\` is not a loopback name: refused (DNS rebinding guard)`,
    );
  }
  const origin = request.headers.get("origin");
  if (origin !== null && !originAllowed(origin, policy.allowedOrigins ?? [])) {
    return refuse(403, `Origin \`${quoted(origin)}\` is not allowed`);
  }
  if (policy.tokens === undefined || request.method === "OPTIONS") return DEFAULT_CLIENT;
  const client = policy.tokens.identify(request.headers.get("authorization"));
  if (client !== undefined) return client;
  return new Response(
    JSON.stringify({
      jsonrpc: "2.0",
      error: { code: -32001, message: "missing or wrong bearer token" },
      id: null,
    }),
    {
      status: 401,
      headers: { "content-type": "application/json", "www-authenticate": "Bearer" },
    },
  );
}

/**
 * The request's `Origin` when it is one whose pages may call the gateway (a
 * loopback origin, or one of `allowedOrigins`); `undefined` without one.
 */
export function allowedOrigin(request: Request, policy: AccessPolicy): string | undefined {
  const origin = request.headers.get("origin");
  return origin !== null && originAllowed(origin, policy.allowedOrigins ?? []) ? origin : undefined;
}

function originAllowed(origin: string, allowed: readonly string[]): boolean {
  if (allowed.includes(origin)) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && isLoopback(url.hostname);
  } catch {
    return false;
  }
}

function refuse(status: number, message: string): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }),
    { status, headers: { "content-type": "application/json" } },
  );
}
