/**
 * Shared pieces of the gateway tests: a gateway in front of the
 * conformance upstream (over stdio), served over HTTP on a free loopback
 * port, and SDK clients for it.
 *
 * @module
 */

import { parseConfig } from "../src/config/parse_config.ts";
import { Gateway } from "../src/gateway/gateway.ts";
import type { GatewayOptions } from "../src/gateway/gateway_options.ts";
import { type HttpServing, serveHttp, type ServeHttpOptions } from "../src/gateway/serve_http.ts";
import type { NoticeFact } from "../src/review/notice.ts";
import { type CallToolResult, Client, StreamableHTTPClientTransport } from "../src/service/sdk.ts";
import type { StreamEvent } from "../src/stream/events.ts";
import { join } from "./_paths.ts";

/** The conformance upstream server's path. */
export const UPSTREAM = new URL("./fixtures/gateway/conformance_upstream.ts", import.meta.url)
  .pathname;

/** Deno's arguments that run the conformance upstream (over stdio; add `--http 0` for HTTP). */
export const UPSTREAM_ARGS: string[] = [
  "run",
  "--quiet",
  "--allow-env",
  "--allow-net=127.0.0.1",
  UPSTREAM,
];

/** The bare relay the gateway benches measure against (`tests/fixtures/gateway/bare_relay.ts`). */
export const BARE_RELAY = new URL("./fixtures/gateway/bare_relay.ts", import.meta.url).pathname;

/** Config TOML with the conformance upstream as `providers.mcp.conf`, plus `extra`. */
export function upstreamConfig(extra = ""): string {
  return `[providers.mcp.conf]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ${JSON.stringify(UPSTREAM_ARGS)}
${extra}`;
}

/** How {@linkcode HttpGateway.client} connects. */
export interface ClientOptions {
  readonly headers?: Record<string, string>;
  /** What the client announces at initialize. Default `gateway-test` 1.0.0. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  readonly capabilities?: { sampling?: Record<string, never>; elicitation?: Record<string, never> };
  readonly setup?: (client: Client) => void;
}

/** A started gateway over HTTP, its notices, and its workspace. */
export interface HttpGateway extends AsyncDisposable {
  readonly gateway: Gateway;
  readonly serving: HttpServing;
  readonly notices: NoticeFact[];
  readonly workspace: string;
  readonly token: string | undefined;
  /**
   * An SDK client connected with the token (or `options.headers`),
   * declaring `options.capabilities` (default: sampling and elicitation),
   * after `options.setup` installed its handlers.
   */
  client(options?: ClientOptions): Promise<Client>;
  /** The events of the only conversation recorded so far. */
  events(): Promise<StreamEvent[]>;
}

/** Starts a gateway in front of the conformance upstream, served on 127.0.0.1. */
export async function startHttpGateway(
  options: {
    readonly config?: string;
    readonly token?: string | undefined;
    readonly gateway?: Partial<GatewayOptions>;
    /** Options of `serveHttp` beyond the address and the token. Default: none. */
    readonly http?: Omit<ServeHttpOptions, "hostname" | "port" | "token">;
  } = {},
): Promise<HttpGateway> {
  const workspace = await Deno.makeTempDir({ prefix: "spillway-gateway-" });
  const notices: NoticeFact[] = [];
  let gateway: Gateway;
  try {
    gateway = await Gateway.start({
      config: parseConfig(options.config ?? upstreamConfig()),
      workspace,
      cwd: workspace,
      noticeSink: { notice: (fact) => notices.push(fact) },
      upstreamStderr: "null",
      ...options.gateway,
    });
  } catch (error) {
    // A test of a failed start leaves no workspace behind.
    await Deno.remove(workspace, { recursive: true });
    throw error;
  }
  const token = "token" in options ? options.token : "test-token";
  const serving = await serveHttp(gateway, {
    ...options.http,
    hostname: "127.0.0.1",
    port: 0,
    token,
  });
  const clients: Client[] = [];
  return {
    gateway,
    serving,
    notices,
    workspace,
    token,
    async client(options = {}) {
      const client = new Client(
        { ...options.clientInfo ?? { name: "gateway-test", version: "1.0.0" } },
        { capabilities: options.capabilities ?? { sampling: {}, elicitation: {} } },
      );
      options.setup?.(client);
      const headers = options.headers ??
        (token === undefined ? {} : { authorization: `Bearer ${token}` });
      const transport = new StreamableHTTPClientTransport(serving.url, {
        requestInit: { headers },
      });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async events() {
      const dir = join(workspace, "conversations");
      const ids = [];
      for await (const entry of Deno.readDir(dir)) ids.push(entry.name);
      if (ids.length !== 1) throw new Error(`expected one conversation, found ${ids.length}`);
      const text = await Deno.readTextFile(join(dir, ids[0] as string, "events.jsonl"));
      return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
    },
    async [Symbol.asyncDispose]() {
      await Promise.allSettled(clients.map((client) => client.close()));
      await serving.close();
      await gateway.close();
      await Deno.remove(workspace, { recursive: true });
    },
  };
}

/** The text blocks of a result, joined as spillway records them. */
export function textOf(result: unknown): string {
  return (result as CallToolResult).content
    .flatMap((block) => block.type === "text" ? [block.text] : [])
    .join("\n");
}

/** The lines a child process writes to one stream, as they come. */
export class StreamLines {
  readonly #lines: string[] = [];
  readonly #waiters: { pattern: RegExp; resolve: (match: RegExpMatchArray) => void }[] = [];
  /** Resolves with every line once the stream has ended. */
  readonly ended: Promise<string[]>;

  /** Starts reading `stream`. */
  constructor(stream: ReadableStream<Uint8Array>) {
    this.ended = this.#read(stream);
  }

  /** Everything read so far. */
  get text(): string {
    return this.#lines.join("\n");
  }

  /**
   * The first line matching `pattern` (already read, or when it comes).
   * Rejects if the stream ends without one.
   */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray> {
    for (const line of this.#lines) {
      const match = line.match(pattern);
      if (match !== null) return Promise.resolve(match);
    }
    const found = Promise.withResolvers<RegExpMatchArray>();
    this.#waiters.push({ pattern, resolve: found.resolve });
    void this.ended.then(() =>
      found.reject(new Error(`no line matched ${pattern} in:\n${this.text}`))
    );
    return found.promise;
  }

  async #read(stream: ReadableStream<Uint8Array>): Promise<string[]> {
    let pending = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      const parts = (pending + chunk).split("\n");
      pending = parts.pop() ?? "";
      for (const line of parts) this.#add(line);
    }
    if (pending !== "") this.#add(pending);
    return this.#lines;
  }

  #add(line: string): void {
    this.#lines.push(line);
    for (const waiter of [...this.#waiters]) {
      const match = line.match(waiter.pattern);
      if (match !== null) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  }
}

/**
 * Spawns `deno <args>` (stdin closed, both outputs read to their end) and
 * waits for the first line of its stdout or stderr matching `pattern`:
 * resolves with the child and the pattern's first group (a port, a URL).
 */
export async function spawnListening(
  args: readonly string[],
  pattern: RegExp,
): Promise<{ readonly child: Deno.ChildProcess; readonly found: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const [, found] = await Promise.any(
    [child.stdout, child.stderr].map((stream) => new StreamLines(stream).waitFor(pattern)),
  );
  return { child, found: found as string };
}

/** `spillway serve` running as a child process, as a client or a supervisor sees it. */
export interface ServeProcess extends AsyncDisposable {
  readonly child: Deno.ChildProcess;
  /** Its stderr, line by line. */
  readonly stderr: StreamLines;
  /** The workspace it records into. */
  readonly workspace: string;
  /** Where it serves (HTTP only). */
  readonly url: URL | undefined;
}

/** The spillway CLI's path. */
export const CLI = new URL("../src/cli.ts", import.meta.url).pathname;

/**
 * Starts `deno run src/cli.ts serve --http 127.0.0.1:0 <flags>` in front of
 * the conformance upstream (config `upstreamConfig(extra)`), and waits for
 * it to listen. Disposing sends SIGTERM and waits for the exit. With
 * `options.tree`, another checkout's CLI runs, with that tree's deno.json
 * (a bench's baseline).
 */
export async function spawnHttpServe(
  flags: readonly string[],
  options: {
    readonly config?: string;
    readonly env?: Record<string, string>;
    readonly tree?: string;
  } = {},
): Promise<ServeProcess> {
  const dir = await Deno.makeTempDir({ prefix: "spillway-serve-" });
  const config = join(dir, "config.toml");
  await Deno.writeTextFile(config, options.config ?? upstreamConfig());
  const workspace = join(dir, "ws");
  const cli = options.tree === undefined
    ? [CLI]
    : ["--config", join(options.tree, "deno.json"), join(options.tree, "src/cli.ts")];
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      ...cli,
      "serve",
      "--http",
      "127.0.0.1:0",
      "--workspace",
      workspace,
      "--config",
      config,
      ...flags,
    ],
    cwd: dir,
    env: options.env ?? {},
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new StreamLines(child.stderr);
  const disposal = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already exited.
    }
    await child.status;
    await stderr.ended;
    await Deno.remove(dir, { recursive: true });
  };
  try {
    const [, url] = await stderr.waitFor(/ tools at (http:\S+)$/) as [string, string];
    return { child, stderr, workspace, url: new URL(url), [Symbol.asyncDispose]: disposal };
  } catch (error) {
    await disposal();
    throw error;
  }
}

/** A JSON-RPC `initialize` request, as a raw client sends it. */
export const INITIALIZE_REQUEST = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
} as const;

/** POSTs {@linkcode INITIALIZE_REQUEST} to `url` with `headers`, as a raw HTTP client would. */
export function postInitialize(url: URL, headers: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(INITIALIZE_REQUEST),
  });
}
