/**
 * Where the time of a 1 KB call through `spillway serve --stdio` goes, in
 * CPU time per call and per process, which a loaded machine does not
 * distort the way it distorts latency. One SDK client makes `--calls`
 * sequential 1 KB calls of the conformance upstream's `big` (after 200 to
 * warm up), and the script prints one JSON line: the mean latency, and the
 * CPU time per call (user + system, from `/proc/<pid>/stat`) of the client
 * (this process), of each process between it and the upstream, and of the
 * upstream.
 *
 *     deno run --allow-all tests/bench/gateway_cpu.ts [--via direct|relay|durable|gateway|mcp-proxy]
 *       [--calls N] [--batch N] [--http] [--modern] [--cpu-prof DIR]
 *
 * - `--via direct` (default): the client calls the upstream itself;
 * - `relay`: through the bare relay (tests/fixtures/gateway/bare_relay.ts),
 *   an SDK server forwarding to an SDK client: the least any gateway in a
 *   process of its own does;
 * - `durable`: the bare relay appending each result to a file and flushing
 *   it (`fdatasync`) before returning it: the least a gateway that records
 *   durably does;
 * - `gateway`: through `spillway serve --stdio`, which also records and
 *   flushes every call in its workspace (a temporary directory);
 * - `mcp-proxy` (with `--http` only): through the fastest peer of the
 *   peers bench, mcp-proxy `--no-eventStore` (npm, pinned, as npx installs
 *   it), which records nothing: its CPU per call beside the gateway's.
 *
 * `--batch N` sends the calls N at a time (each group once the previous one
 * is answered); the latency printed is then the time per call, not per group.
 *
 * `--http` (direct or gateway only): the client calls over Streamable
 * HTTP: the upstream's own HTTP server (`--http 0`), or `spillway serve
 * --http` (in front of the upstream over stdio, as always).
 *
 * `--modern` (with `--http`): the client is a v2 client pinned to MCP
 * 2026-07-28 (no session; each call its own POST with the `_meta`
 * envelope); `--via direct` then calls tests/fixtures/gateway/big_v2_upstream.ts
 * (the conformance upstream speaks 2025 only); the gateway and mcp-proxy
 * stay in front of the conformance upstream, so only their front's era
 * differs from a run without `--modern`.
 *
 * `--cpu-prof DIR` has the relay or the gateway write a V8 CPU profile
 * (`.cpuprofile`, for Chrome's DevTools) into DIR when it exits.
 *
 * Linux only (`/proc`).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { freePort } from "../_free_port.ts";
import { npmBin } from "../_npm_bin.ts";
import {
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

const { values } = parseArgs({
  args: Deno.args,
  options: {
    via: { type: "string", default: "direct" },
    calls: { type: "string", default: "1000" },
    batch: { type: "string", default: "1" },
    "cpu-prof": { type: "string" },
    http: { type: "boolean", default: false },
    modern: { type: "boolean", default: false },
  },
});
const via = values.via;
/** Where the relay or gateway process writes its V8 CPU profile (`--cpu-prof-dir`), if asked. */
const profileDir = values["cpu-prof"];
const profiled = profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`];
const calls = Number(values.calls);
/** Calls sent at once, each group after the previous one answered. */
const batch = Number(values.batch);
if (
  !["direct", "relay", "durable", "gateway", "mcp-proxy"].includes(via) ||
  !Number.isSafeInteger(calls) ||
  calls < 1
) {
  throw new Error(
    "usage: gateway_cpu.ts [--via direct|relay|durable|gateway|mcp-proxy] [--calls N] [--batch N] [--http] [--modern] [--cpu-prof DIR]",
  );
}

/** The peer, pinned as in the peers bench. */
const MCP_PROXY = "mcp-proxy@6.7.19";
const dir = Deno.makeTempDirSync({ prefix: "spillway-gateway-cpu-" });
Deno.writeTextFileSync(`${dir}/config.toml`, upstreamConfig());
const args = via === "direct" ? UPSTREAM_ARGS : via === "relay" || via === "durable"
  ? [
    ...["run", "-A", "--quiet", ...profiled, BARE_RELAY],
    ...(via === "durable" ? ["--durable", `${dir}/relay.jsonl`] : []),
    ...[Deno.execPath(), ...UPSTREAM_ARGS],
  ]
  : [
    ...["run", "-A", "--quiet", ...profiled, CLI, "serve", "--stdio", "--quiet"],
    ...["--workspace", `${dir}/workspace`, "--config", `${dir}/config.toml`],
  ];
if (values.modern && !values.http) throw new Error("--modern: over --http only");
const client = new Client(
  { name: "gateway-cpu", version: "0" },
  values.modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
);
const BIG_V2 = new URL("../fixtures/gateway/big_v2_upstream.ts", import.meta.url).pathname;
/** The process the client talks to: its stdio child, or the HTTP server started for it. */
let serverPid: number;
let server: Deno.ChildProcess | undefined;
if (via === "mcp-proxy") {
  if (!values.http) throw new Error("--via mcp-proxy: over --http only");
  const port = freePort();
  server = new Deno.Command(await npmBin(MCP_PROXY, "mcp-proxy"), {
    args: [
      ...["--port", String(port), "--host", "127.0.0.1", "--server", "stream", "--no-eventStore"],
      ...["--", Deno.execPath(), ...UPSTREAM_ARGS],
    ],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  serverPid = server.pid;
  await accepting(port);
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
} else if (values.http) {
  if (via !== "direct" && via !== "gateway") {
    throw new Error("--http: --via direct, gateway or mcp-proxy");
  }
  const httpArgs = via === "direct"
    ? values.modern
      ? ["run", "--quiet", "--allow-net=127.0.0.1", BIG_V2, "--http", "0"]
      : [...UPSTREAM_ARGS, "--http", "0"]
    : [...args.filter((arg) => arg !== "--stdio"), "--http", "127.0.0.1:0", "--no-auth"];
  const started = await spawnListening(
    httpArgs,
    via === "direct" ? /listening on (\d+)/ : /tools at (http:\S+)$/,
  );
  server = started.child;
  serverPid = server.pid;
  const url = started.found;
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(via === "direct" ? `http://127.0.0.1:${url}/mcp` : url),
    ),
  );
} else {
  const transport = new StdioClientTransport({ command: Deno.execPath(), args, stderr: "inherit" });
  await client.connect(transport);
  serverPid = transport.pid as number;
}

/** Waits until `port` accepts connections (a peer may print before it listens); 30 s at most. */
async function accepting(port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`port ${port} does not accept: ${error}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** `pid` and its descendants, parents first. */
function descendants(pid: number): number[] {
  const text = Deno.readTextFileSync(`/proc/${pid}/task/${pid}/children`).trim();
  const children = text === "" ? [] : text.split(/\s+/).map(Number);
  return [pid, ...children.flatMap(descendants)];
}

/** User + system CPU time of `pid` so far, in ms (the kernel counts in 10 ms ticks). */
function cpuMs(pid: number): number {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const call = () => client.callTool({ name: "big", arguments: { bytes: 1024 } });
for (let i = 0; i < 200; i++) await call();
const processes = [Deno.pid, ...descendants(serverPid)];
const before = processes.map(cpuMs);
const start = performance.now();
for (let i = 0; i < calls; i += batch) {
  await Promise.all(Array.from({ length: Math.min(batch, calls - i) }, call));
}
const latencyMs = (performance.now() - start) / calls;
const after = processes.map(cpuMs);
const perCall = (i: number) => Number((((after[i] ?? 0) - (before[i] ?? 0)) / calls).toFixed(3));
console.log(JSON.stringify({
  via,
  transport: values.http ? "http" : "stdio",
  protocol: client.getNegotiatedProtocolVersion(),
  calls,
  batch,
  latencyMs: Number(latencyMs.toFixed(3)),
  cpuMsPerCall: {
    client: perCall(0),
    ...(via === "direct" ? {} : { [via]: perCall(1) }),
    upstream: perCall(processes.length - 1),
  },
  load: Deno.loadavg()[0],
}));
await client.close();
if (server !== undefined) {
  server.kill("SIGTERM");
  await server.status;
}
Deno.removeSync(dir, { recursive: true });
