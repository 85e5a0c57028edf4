/**
 * Shared pieces of the gateway tests: a gateway in front of the
 * conformance upstream (over stdio), served over HTTP on a free loopback
 * port, and SDK clients for it.
 *
 * @module
 */

import { parseConfig } from "../src/config/parse_config.ts";
import { Gateway, type GatewayOptions } from "../src/gateway/gateway.ts";
import { type HttpServing, serveHttp } from "../src/gateway/serve_http.ts";
import type { NoticeFact } from "../src/review/notice.ts";
import { type CallToolResult, Client, StreamableHTTPClientTransport } from "../src/service/sdk.ts";
import type { StreamEvent } from "../src/stream/events.ts";
import { join } from "./_paths.ts";

/** The conformance upstream server's path. */
export const UPSTREAM = new URL("./fixtures/gateway/conformance_upstream.ts", import.meta.url)
  .pathname;

/** Config TOML with the conformance upstream as `providers.mcp.conf`, plus `extra`. */
export function upstreamConfig(extra = ""): string {
  return `[providers.mcp.conf]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ["run", "--quiet", "--allow-env", "--allow-net=127.0.0.1", ${JSON.stringify(UPSTREAM)}]
${extra}`;
}

/** A started gateway over HTTP, its notices, and its workspace. */
export interface HttpGateway extends AsyncDisposable {
  readonly gateway: Gateway;
  readonly serving: HttpServing;
  readonly notices: NoticeFact[];
  readonly workspace: string;
  readonly token: string | undefined;
  /** An SDK client connected with the token (or `headers`). */
  client(headers?: Record<string, string>): Promise<Client>;
  /** The events of the only conversation recorded so far. */
  events(): Promise<StreamEvent[]>;
}

/** Starts a gateway in front of the conformance upstream, served on 127.0.0.1. */
export async function startHttpGateway(
  options: {
    readonly config?: string;
    readonly token?: string | undefined;
    readonly gateway?: Partial<GatewayOptions>;
  } = {},
): Promise<HttpGateway> {
  const workspace = await Deno.makeTempDir({ prefix: "spillway-gateway-" });
  const notices: NoticeFact[] = [];
  const gateway = await Gateway.start({
    config: parseConfig(options.config ?? upstreamConfig()),
    workspace,
    cwd: workspace,
    noticeSink: { notice: (fact) => notices.push(fact) },
    upstreamStderr: "null",
    ...options.gateway,
  });
  const token = "token" in options ? options.token : "test-token";
  const serving = await serveHttp(gateway, { hostname: "127.0.0.1", port: 0, token });
  const clients: Client[] = [];
  return {
    gateway,
    serving,
    notices,
    workspace,
    token,
    async client(headers) {
      const client = new Client(
        { name: "gateway-test", version: "1.0.0" },
        { capabilities: { sampling: {}, elicitation: {} } },
      );
      const transport = new StreamableHTTPClientTransport(serving.url, {
        requestInit: {
          headers: headers ?? (token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
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
