/**
 * Test helper: several `spillway serve --http` processes sharing one
 * PostgreSQL database, as a team runs them, optionally behind HAProxy
 * (Debian's `haproxy`) pinning each MCP session to the gateway that
 * created it by its `Mcp-Session-Id` header, or (for 2026-07-28 clients,
 * which have no session) sending each request round robin. The HAProxy
 * configurations are the ones docs/deployment.md shows (`haproxyConfig`),
 * so the documented set-ups are the tested ones.
 *
 * @module
 */

import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "../src/service/sdk.ts";
import { type ServeProcess, spawnHttpServe } from "./gateway_fixtures.ts";
import { PG_PASSWORD, pgTest } from "./_postgres.ts";

/** The bearer token every test gateway takes. */
export const GATEWAY_TOKEN = "gateways-test-token";

const ECHO = new URL("./fixtures/postgres/echo_upstream.ts", import.meta.url).pathname;

/**
 * Config TOML: the echo upstream (`echo` spilling its outputs unless
 * `spill` is false), and the store `url` (its password in the environment).
 */
export function gatewayConfig(url: string, extra = "", spill = true): string {
  return `[store]
type = "postgres"
url = ${JSON.stringify(url)}
password_env = "SPILLWAY_DATABASE_PASSWORD"

[providers.mcp.up]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ["run", "--quiet", "--allow-env", ${JSON.stringify(ECHO)}]

[conversation.tools.echo]
spill = ${spill}
${extra}`;
}

/**
 * Starts `count` gateways on the database `url`, each with a workspace of
 * its own (`spill`: whether `echo` spills; default true).
 */
export async function startGateways(
  count: number,
  url: string,
  spill = true,
): Promise<ServeProcess[]> {
  const env = { SPILLWAY_SERVE_TOKEN: GATEWAY_TOKEN, SPILLWAY_DATABASE_PASSWORD: PG_PASSWORD };
  const started: ServeProcess[] = [];
  try {
    // One at a time: the first creates the schema (the others would wait for its lock).
    for (let i = 0; i < count; i++) {
      started.push(await spawnHttpServe([], { config: gatewayConfig(url, "", spill), env }));
    }
  } catch (error) {
    for (const gateway of started) await gateway[Symbol.asyncDispose]();
    throw error;
  }
  return started;
}

/** Options of {@linkcode haproxyConfig} and {@linkcode startHaproxy}. */
export interface HaproxyOptions {
  /**
   * Whether a session's requests are pinned to its gateway (`Mcp-Session-Id`).
   * Without, every request goes round robin: the fleet of 2026-07-28
   * clients. Default: true.
   */
  readonly sticky?: boolean;
}

/**
 * The HAProxy configurations of docs/deployment.md. Sticky (the default):
 * round robin for new sessions, then every request of a session to the
 * gateway whose `initialize` answer named it (`Mcp-Session-Id`), a dead
 * gateway's sessions sent elsewhere (where they are unknown: the client
 * starts a new one). Not sticky: every request round robin, a request that
 * could not connect to a dead gateway sent to another one, and a request
 * its client closed closed to its gateway too (a 2026-07-28 cancellation).
 */
export function haproxyConfig(
  bind: string,
  gateways: readonly URL[],
  options: HaproxyOptions = {},
): string {
  const sticky = options.sticky ?? true;
  const stick = sticky
    ? `  stick-table type string len 64 size 1m expire 24h
  stick on req.hdr(mcp-session-id)
  stick store-response res.hdr(mcp-session-id)
`
    : "";
  // A 2026-07-28 client cancels a call by closing its request: without this HAProxy
  // keeps the request open to its gateway, which runs the call on (tried: HAProxy 2.6).
  const abort = sticky
    ? ""
    : "  option abortonclose     # a request its client closed is closed to its gateway\n";
  const servers = gateways.map((url, i) =>
    `  server gateway${i + 1} ${url.hostname}:${url.port} check inter 1s fall 1 rise 2`
  );
  return `global
  maxconn 4096

defaults
  mode http
  option redispatch
  retries 2
  timeout connect 5s
  timeout client 1h       # longer than the longest call: a person's review, a slow tool
  timeout server 1h
${abort}
frontend mcp
  bind ${bind}
  default_backend spillway

backend spillway
  balance roundrobin
${stick}${servers.join("\n")}
`;
}

/** Why HAProxy cannot run here, or `undefined`. */
export async function haproxyMissing(): Promise<string | undefined> {
  try {
    const output = await new Deno.Command("haproxy", { args: ["-v"], stdout: "null" }).output();
    return output.success ? undefined : "haproxy -v failed";
  } catch {
    return "HAProxy is not installed: apt-get install -y haproxy";
  }
}

const noHaproxy = await haproxyMissing();

/**
 * A PostgreSQL test (`pgTest`) that also needs HAProxy: ignored, its name
 * saying why, without it (unless SPILLWAY_REQUIRE_POSTGRES=1, as in CI).
 */
export function balancedTest(name: string, fn: () => Promise<void>): void {
  if (noHaproxy !== undefined && Deno.env.get("SPILLWAY_REQUIRE_POSTGRES") !== "1") {
    Deno.test({ name: `${name} (ignored: ${noHaproxy})`, ignore: true, fn });
    return;
  }
  pgTest(name, fn);
}

/** A running HAProxy in front of `gateways`. */
export interface Balancer extends AsyncDisposable {
  /** The URL clients connect to. */
  readonly url: URL;
  /** HAProxy's process id. */
  readonly pid: number;
}

/** Starts HAProxy on a free loopback port in front of `gateways` (see {@linkcode HaproxyOptions}). */
export async function startHaproxy(
  gateways: readonly URL[],
  options: HaproxyOptions = {},
): Promise<Balancer> {
  const dir = await Deno.makeTempDir({ prefix: "spillway_haproxy_" });
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const config = join(dir, "haproxy.cfg");
  await Deno.writeTextFile(config, haproxyConfig(`127.0.0.1:${port}`, gateways, options));
  const check = await new Deno.Command("haproxy", { args: ["-c", "-q", "-f", config] }).output();
  if (!check.success) throw new Error(`haproxy -c: ${new TextDecoder().decode(check.stderr)}`);
  const child = new Deno.Command("haproxy", {
    args: ["-db", "-f", config],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  // Listening once a connection is accepted.
  for (let tries = 0;; tries++) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      break;
    } catch (error) {
      if (tries > 200) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  return {
    url,
    pid: child.pid,
    [Symbol.asyncDispose]: async () => {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already gone.
      }
      await child.status;
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/**
 * An SDK client of `url` with the test token; with `conversation`, a
 * 2026-07-28 client (pinned: no session) whose requests name that
 * conversation (the `Spillway-Conversation` header).
 */
export async function gatewayClient(
  url: URL,
  name = "pg-test",
  conversation?: string,
): Promise<Client> {
  const client = new Client(
    { name, version: "1.0.0" },
    conversation === undefined ? {} : { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  const headers: Record<string, string> = { authorization: `Bearer ${GATEWAY_TOKEN}` };
  if (conversation !== undefined) headers["spillway-conversation"] = conversation;
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}
