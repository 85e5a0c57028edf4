/**
 * spillway beside the MCP gateways people use instead, in one run: the same
 * SDK client calls the conformance upstream's `big` tool (1 KB results)
 * directly, through `spillway serve`, through supergateway and through
 * mcp-proxy (both from npm, pinned, run as npx installs them), over stdio
 * and over Streamable HTTP. Interleaved rounds (each round runs every
 * contender once, in a rotated order, so a noisy neighbour hits them all
 * alike), then the median and the best round of each:
 *
 * - sequential: `--calls` 1 KB calls one after the other, ms per call;
 * - concurrent: 100 1 KB calls at once, ms per batch.
 *
 * Contenders, each with its own upstream process:
 *
 * - stdio: direct (the upstream over stdio); `spillway serve --stdio`; the
 *   durable relay (tests/fixtures/gateway/bare_relay.ts `--durable`: an SDK
 *   relay that appends and fdatasyncs each result before returning it, the
 *   least a gateway that records durably does); supergateway
 *   (`--streamableHttp URL`: stdio to its client, HTTP to its upstream).
 * - HTTP: direct (the upstream on `--http`); `spillway serve --http
 *   --no-auth`; supergateway (`--stdio CMD --outputTransport
 *   streamableHttp --stateful`: stateless, its default, starts the
 *   upstream anew for every request, ~550 ms a call here); mcp-proxy
 *   (`--server stream`, with its resumability event store, its default,
 *   and with `--no-eventStore`).
 *
 * Only spillway records every result and makes it durable before
 * delivering it. So two more HTTP rows measure what durability costs on its
 * own, in the same run: direct calls, and the fastest peer's calls (mcp-proxy
 * `--no-eventStore`), each followed in this process by a 1 KB append and an
 * `fdatasync` of a file (a batch of 100: one append of its results and one
 * `fdatasync`), the least any gateway that records durably adds to them.
 * Run: `deno task bench:peers [--rounds 7] [--calls 200]`.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { freePort } from "../_free_port.ts";
import { npmBin } from "../_npm_bin.ts";
import {
  type CallToolResult,
  Client,
  StdioClientTransport,
  StreamableHTTPClientTransport,
} from "../../src/service/sdk.ts";
import {
  BARE_RELAY,
  CLI,
  StreamLines,
  UPSTREAM_ARGS,
  upstreamConfig,
} from "../gateway_fixtures.ts";

/** The peers, pinned. */
const SUPERGATEWAY = "supergateway@4.0.0";
const MCP_PROXY = "mcp-proxy@6.7.19";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "7" },
    calls: { type: "string", default: "200" },
  },
});
const ROUNDS = Number(values.rounds);
const CALLS = Number(values.calls);
const BATCH = 100;
const NO_TIMEOUT = { timeout: 2 ** 31 - 1 };

const dir = await Deno.makeTempDir({ prefix: "spillway-gateway-peers-" });
const config = `${dir}/config.toml`;
await Deno.writeTextFile(config, upstreamConfig());
const children: Deno.ChildProcess[] = [];
const clients: Client[] = [];
const upstream = [Deno.execPath(), ...UPSTREAM_ARGS];

/** Starts `command args`, resolves with the first group of `pattern` in a line of its stdout or stderr. */
async function start(command: string, args: string[], pattern: RegExp): Promise<string> {
  const child = new Deno.Command(command, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  children.push(child);
  const [, found] = await Promise.any(
    [child.stdout, child.stderr].map((stream) => new StreamLines(stream).waitFor(pattern)),
  );
  return found ?? "";
}

async function connect(transport: StdioClientTransport | StreamableHTTPClientTransport) {
  const client = new Client({ name: "gateway-peers-bench", version: "0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const stdio = (command: string, args: string[]) =>
  connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
const http = async (url: string) => {
  await accepting(new URL(url));
  return await connect(new StreamableHTTPClientTransport(new URL(url)));
};

/**
 * Waits until `url`'s port accepts connections: a peer may say it is
 * starting before it listens. Gives up after 30 s.
 */
async function accepting(url: URL): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      (await Deno.connect({ hostname: url.hostname, port: Number(url.port) })).close();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${url} does not accept connections: ${error}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
const upstreamHttp = async () =>
  `http://127.0.0.1:${await start(
    upstream[0]!,
    [...UPSTREAM_ARGS, "--http", "0"],
    /listening on (\d+)/,
  )}/mcp`;
const serveArgs = (name: string) =>
  ["run", "-A", "--quiet", CLI, "serve", "--workspace"]
    .concat([`${dir}/${name}`, "--config", config, "--quiet"]);

/** One contender: what the client talks to. */
interface Contender {
  readonly transport: "stdio" | "http";
  readonly name: string;
  readonly client: Client;
  /** Where each result is appended and flushed after its call (the durability floor rows). */
  readonly durable?: Deno.FsFile;
}

async function contenders(): Promise<Contender[]> {
  const supergateway = await npmBin(SUPERGATEWAY, "supergateway");
  const mcpProxy = await npmBin(MCP_PROXY, "mcp-proxy");
  const sgPort = freePort();
  const proxyPort = freePort();
  const bareProxyPort = freePort();
  const command = upstream.map((part) => JSON.stringify(part)).join(" ");
  const list: [Contender["transport"], string, Promise<Client>][] = [
    ["stdio", "direct", stdio(upstream[0]!, UPSTREAM_ARGS)],
    ["stdio", "spillway serve --stdio", stdio(Deno.execPath(), [...serveArgs("stdio"), "--stdio"])],
    [
      "stdio",
      "durable relay (append + fdatasync)",
      stdio(
        Deno.execPath(),
        ["run", "-A", "--quiet", BARE_RELAY, "--durable"].concat([
          `${dir}/relay.jsonl`,
          ...upstream,
        ]),
      ),
    ],
    [
      "stdio",
      `supergateway (${SUPERGATEWAY.split("@")[1]})`,
      upstreamHttp().then((url) =>
        stdio(supergateway, ["--streamableHttp", url, "--logLevel", "none"])
      ),
    ],
    ["http", "direct", upstreamHttp().then(http)],
    [
      "http",
      "spillway serve --http",
      start(
        Deno.execPath(),
        [...serveArgs("http"), "--http", "127.0.0.1:0", "--no-auth"],
        /^(http:\S+)$/,
      ).then(http),
    ],
    [
      "http",
      `supergateway --stateful (${SUPERGATEWAY.split("@")[1]})`,
      start(supergateway, [
        ...["--stdio", command, "--outputTransport", "streamableHttp", "--stateful"],
        ...["--port", String(sgPort)],
      ], /(Listening on port \d+)/).then(() => http(`http://127.0.0.1:${sgPort}/mcp`)),
    ],
    [
      "http",
      `mcp-proxy (${MCP_PROXY.split("@")[1]})`,
      start(mcpProxy, [
        ...["--port", String(proxyPort), "--host", "127.0.0.1", "--server", "stream", "--"],
        ...upstream,
      ], /(starting server on port)/).then(() => http(`http://127.0.0.1:${proxyPort}/mcp`)),
    ],
    [
      "http",
      `mcp-proxy --no-eventStore`,
      start(mcpProxy, [
        ...["--port", String(bareProxyPort), "--host", "127.0.0.1", "--server", "stream"],
        ...["--no-eventStore", "--"],
        ...upstream,
      ], /(starting server on port)/).then(() => http(`http://127.0.0.1:${bareProxyPort}/mcp`)),
    ],
  ];
  const started: Contender[] = await Promise.all(
    list.map(async ([transport, name, client]) => ({ transport, name, client: await client })),
  );
  const floors = [["direct", "direct + append and fdatasync"], [
    "mcp-proxy --no-eventStore",
    "mcp-proxy --no-eventStore + append and fdatasync",
  ]];
  for (const [of, name] of floors) {
    const { client } = started.find((c) => c.transport === "http" && c.name === of)!;
    const durable = await Deno.open(`${dir}/${name!.split(" ")[0]}.jsonl`, {
      create: true,
      append: true,
    });
    started.push({ transport: "http", name: name!, client, durable });
  }
  return started;
}

const encoder = new TextEncoder();

/** Appends the results as JSON lines and flushes them (`fdatasync`). */
async function record(file: Deno.FsFile, results: CallToolResult[]): Promise<void> {
  const lines = results.map((result) => JSON.stringify(result) + "\n").join("");
  await file.write(encoder.encode(lines));
  await file.syncData();
}

/** One 1 KB call; checks that the result is whole. */
async function call(client: Client): Promise<CallToolResult> {
  const result = await client.callTool(
    { name: "big", arguments: { bytes: 1024 } },
    NO_TIMEOUT,
  ) as CallToolResult;
  const block = result.content[0];
  if (block?.type !== "text" || block.text.length !== 1024) throw new Error("not a 1 KB result");
  return result;
}

async function sequential({ client, durable }: Contender): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const result = await call(client);
    if (durable !== undefined) await record(durable, [result]);
  }
  return (performance.now() - started) / CALLS;
}

async function concurrent({ client, durable }: Contender): Promise<number> {
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: BATCH }, () => call(client)));
  if (durable !== undefined) await record(durable, results);
  return performance.now() - started;
}

const median = (xs: number[]) => {
  const sorted = xs.toSorted((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** The floor rows' files, closed at the end. */
const durableFiles: Deno.FsFile[] = [];
try {
  const all = await contenders();
  for (const { durable } of all) if (durable !== undefined) durableFiles.push(durable);
  // Warm up: every path compiled, every session open.
  for (const contender of all) {
    await sequential(contender);
    await concurrent(contender);
  }
  const seq = new Map(all.map((c) => [c, [] as number[]]));
  const par = new Map(all.map((c) => [c, [] as number[]]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = all.map((_, i) => all[(i + round) % all.length]!);
    for (const contender of order) seq.get(contender)!.push(await sequential(contender));
    for (const contender of order) par.get(contender)!.push(await concurrent(contender));
  }
  const load = Deno.loadavg().map((figure) => figure.toFixed(2)).join(" ");
  console.log(
    `${ROUNDS} interleaved rounds; ${CALLS} sequential 1 KB calls and one batch of ${BATCH} ` +
      `concurrent 1 KB calls per contender per round; load average ${load}\n`,
  );
  const rows = [[
    "transport",
    "contender",
    "sequential ms/call: median",
    "best",
    "× direct",
    `${BATCH} at once ms/batch: median`,
    "best",
    "× direct",
  ]];
  for (const contender of all) {
    const direct = all.find((c) => c.transport === contender.transport && c.name === "direct")!;
    const s = seq.get(contender)!;
    const p = par.get(contender)!;
    rows.push([
      contender.transport,
      contender.name,
      median(s).toFixed(2),
      Math.min(...s).toFixed(2),
      (median(s) / median(seq.get(direct)!)).toFixed(2),
      median(p).toFixed(1),
      Math.min(...p).toFixed(1),
      (median(p) / median(par.get(direct)!)).toFixed(2),
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join("  "));
} finally {
  await Promise.allSettled(clients.map((client) => client.close()));
  for (const file of durableFiles) file.close();
  for (const child of children) {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already gone.
    }
  }
  await Promise.allSettled(children.map((child) => child.status));
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
