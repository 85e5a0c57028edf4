/**
 * `spillway serve` against the same MCP SDK client calling the upstream
 * server directly (the conformance upstream of the gateway tests, tool
 * `big`), over stdio and over Streamable HTTP:
 *
 * - "gateway-1KB-<transport>": one `tools/call` with a 1 KB result, direct
 *   (baseline) vs through the gateway (target: ≤ 1.5× the direct latency);
 * - "gateway-1KB-x100-<transport>": 100 such calls at once (throughput);
 * - "gateway-5MB-<transport>": one call whose upstream returns 5 MB. The
 *   gateway delivers what it records: the 2 MiB batch ceiling's cut (the
 *   tool's threshold is `unlimited` here).
 *
 * Over stdio, two more contenders show the floor of any gateway in its own
 * process: a bare relay (tests/fixtures/gateway/bare_relay.ts), an SDK
 * server forwarding each call to an SDK client of the upstream, with no cap,
 * no record and no flush: the cost of the second process hop alone; and the
 * same relay recording durably (`--durable`): each result appended to a file
 * and flushed (`fdatasync`) before it is returned, the results that arrive
 * during a flush sharing the next one: the least a gateway that records
 * before it delivers does.
 *
 * Through the gateway every call is also recorded in the session's
 * conversation and flushed (one fsync per phase) before it is delivered.
 * The direct servers and the gateways (each in front of its own upstream
 * over stdio) are started once, before the first bench, and stopped when
 * the bench process unloads. Run: `deno task bench tests/bench/gateway_bench.ts`.
 *
 * @module
 */

import {
  type CallToolResult,
  Client,
  StdioClientTransport,
  StreamableHTTPClientTransport,
} from "../../src/service/sdk.ts";
import {
  BARE_RELAY,
  CLI,
  spawnListening,
  UPSTREAM_ARGS,
  upstreamConfig,
} from "../gateway_fixtures.ts";

const dir = Deno.makeTempDirSync({ prefix: "spillway-gateway-bench-" });
const config = `${dir}/config.toml`;
Deno.writeTextFileSync(
  config,
  upstreamConfig(`
[conversation.tools.big]
size_threshold = "unlimited"
`),
);
const serveArgs = (workspace: string) => [
  "run",
  "-A",
  "--quiet",
  CLI,
  "serve",
  "--workspace",
  `${dir}/${workspace}`,
  "--config",
  config,
];

const children: Deno.ChildProcess[] = [];

/** Spawns `deno <args>`, returns the first match of `pattern` in its stdout or stderr. */
async function spawnServer(args: string[], pattern: RegExp): Promise<string> {
  const { child, found } = await spawnListening(args, pattern);
  children.push(child);
  return found;
}

async function client(transport: StdioClientTransport | StreamableHTTPClientTransport) {
  const sdk = new Client({ name: "spillway-bench", version: "0" });
  await sdk.connect(transport);
  return sdk;
}

const directStdio = await client(
  new StdioClientTransport({
    command: Deno.execPath(),
    args: UPSTREAM_ARGS,
    maxBufferSize: 256 * 1024 * 1024,
  }),
);
const gatewayStdio = await client(
  new StdioClientTransport({
    command: Deno.execPath(),
    args: [...serveArgs("stdio"), "--stdio", "--quiet"],
    maxBufferSize: 256 * 1024 * 1024,
    stderr: "ignore",
  }),
);
const bareRelay = await client(
  new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", BARE_RELAY, Deno.execPath(), ...UPSTREAM_ARGS],
    maxBufferSize: 256 * 1024 * 1024,
  }),
);
const durableRelay = await client(
  new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      ...["run", "-A", "--quiet", BARE_RELAY, "--durable", `${dir}/durable_relay.jsonl`],
      ...[Deno.execPath(), ...UPSTREAM_ARGS],
    ],
    maxBufferSize: 256 * 1024 * 1024,
  }),
);
const directPort = await spawnServer([...UPSTREAM_ARGS, "--http", "0"], /listening on (\d+)/);
const directHttp = await client(
  new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${directPort}/mcp`)),
);
const gatewayUrl = await spawnServer(
  [...serveArgs("http"), "--http", "127.0.0.1:0", "--no-auth"],
  /tools at (http:\S+)$/,
);
const gatewayHttp = await client(new StreamableHTTPClientTransport(new URL(gatewayUrl)));

const clients = { directStdio, gatewayStdio, bareRelay, durableRelay, directHttp, gatewayHttp };

globalThis.addEventListener("unload", () => {
  // Benches have no async teardown: SIGTERM ends the servers (a gateway
  // stops its own upstream), closing the stdio clients' pipes ends theirs.
  for (const child of children) child.kill("SIGTERM");
  for (const sdk of Object.values(clients)) void sdk.close();
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch {
    // A gateway still writing its last commit: the temp dir stays behind.
  }
});

/** One call of `big`; no request timeout (a loaded machine can take long for 5 MB). */
async function big(sdk: Client, bytes: number): Promise<number> {
  const result = await sdk.callTool({ name: "big", arguments: { bytes } }, {
    timeout: 2 ** 31 - 1,
  }) as CallToolResult;
  const block = result.content[0];
  if (block?.type !== "text") throw new Error("expected text");
  return block.text.length;
}

// Warm up: every server started, every path compiled.
for (const sdk of Object.values(clients)) await big(sdk, 1024);

for (const transport of ["stdio", "http"] as const) {
  const direct = transport === "stdio" ? directStdio : directHttp;
  const gateway = transport === "stdio" ? gatewayStdio : gatewayHttp;
  const group1 = `gateway-1KB-${transport}`;
  Deno.bench({
    name: `direct: SDK client → upstream (${transport}), 1 KB`,
    group: group1,
    baseline: true,
    fn: async () => void await big(direct, 1024),
  });
  Deno.bench({
    name: `gateway: SDK client → serve --${transport} → upstream, 1 KB`,
    group: group1,
    fn: async () => void await big(gateway, 1024),
  });
  if (transport === "stdio") {
    Deno.bench({
      name: "bare relay: SDK client → SDK server + client → upstream, 1 KB",
      group: group1,
      fn: async () => void await big(bareRelay, 1024),
    });
    Deno.bench({
      name: "durable relay: bare relay + append + fdatasync per call, 1 KB",
      group: group1,
      fn: async () => void await big(durableRelay, 1024),
    });
  }
  const group100 = `gateway-1KB-x100-${transport}`;
  // `deno bench` awaits `fn` only when it is an `async` function: a plain
  // arrow returning a promise is timed as synchronous work, called again
  // at once, never awaited (100,000 batches in flight, which ran the direct
  // HTTP client out of file descriptors). Every bench `fn` here is `async`.
  const hundred = async (sdk: Client) => {
    await Promise.all(Array.from({ length: 100 }, () => big(sdk, 1024)));
  };
  Deno.bench({
    name: `direct: 100 calls at once (${transport})`,
    group: group100,
    baseline: true,
    fn: async () => await hundred(direct),
  });
  Deno.bench({
    name: `gateway: 100 calls at once (${transport})`,
    group: group100,
    fn: async () => await hundred(gateway),
  });
  if (transport === "stdio") {
    Deno.bench({
      name: "bare relay: 100 calls at once (stdio)",
      group: group100,
      fn: async () => await hundred(bareRelay),
    });
    Deno.bench({
      name: "durable relay: 100 calls at once (stdio)",
      group: group100,
      fn: async () => await hundred(durableRelay),
    });
  }
  const group5 = `gateway-5MB-${transport}`;
  const FIVE_MB = 5 * 1024 * 1024;
  Deno.bench({
    name: `direct: 5 MB result (${transport})`,
    group: group5,
    baseline: true,
    n: 5,
    warmup: 1,
    fn: async () => {
      if (await big(direct, FIVE_MB) !== FIVE_MB) throw new Error("wrong size");
    },
  });
  Deno.bench({
    name: `gateway: 5 MB result, 2 MiB delivered (${transport})`,
    group: group5,
    n: 5,
    warmup: 1,
    fn: async () => {
      if (await big(gateway, FIVE_MB) > 2 * 1024 * 1024) throw new Error("not capped");
    },
  });
}
