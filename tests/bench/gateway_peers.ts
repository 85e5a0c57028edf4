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
 * MCP 2026-07-28 rows (`http 2026`): a v2 client pinned to 2026-07-28
 * (no session; each request its own POST with the `_meta` envelope) calls
 * `big` of tests/fixtures/gateway/big_v2_upstream.ts (a v2 server serving
 * both eras: `createMcpHandler` over HTTP, `serveStdio` over stdio), each
 * contender with its own upstream process: direct (the upstream on
 * `--http`); `spillway serve --http --no-auth` (the upstream over stdio,
 * spoken to in 2025, spillway's only upstream era on this tree); mcp-proxy
 * (its modern leg on the same endpoint; the upstream over stdio, 2025, its
 * default `--upstreamProtocol legacy`); supergateway (its modern leg starts
 * the stdio upstream anew for every request, in both of its modes: measured
 * with `--slow-calls` calls and no batch of 100, which would start 100
 * upstreams at once); and the floor rows of direct and of the fastest
 * modern peer with an append and `fdatasync`. One more row calls the 2025
 * rows' spillway (the conformance upstream behind it) with the modern
 * client: the same gateway process, the other era in front.
 *
 * `--baseline DIR` adds the 2025 rows of another tree's `spillway serve`
 * (`--stdio` and `--http`; e.g. `git worktree add --detach /tmp/main-tree
 * main`), run with that tree's deno.json in front of this tree's upstream:
 * 2025 sessions before and after a change, in the same run.
 *
 * Run: `deno task bench:peers [--rounds 7] [--calls 200] [--slow-calls 5]
 * [--baseline DIR] [--only REGEX]` (`--only`: the contenders whose
 * `transport contender` matches, for a quick look).
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
    "slow-calls": { type: "string", default: "5" },
    baseline: { type: "string" },
    only: { type: "string" },
  },
});
const ROUNDS = Number(values.rounds);
const CALLS = Number(values.calls);
const SLOW_CALLS = Number(values["slow-calls"]);
const BASELINE = values.baseline;
const ONLY = values.only === undefined ? undefined : new RegExp(values.only);
/** The modern upstream (tests/fixtures/gateway/big_v2_upstream.ts). */
const BIG_V2 = new URL("../fixtures/gateway/big_v2_upstream.ts", import.meta.url).pathname;
const BIG_V2_ARGS = ["run", "--quiet", "--allow-net=127.0.0.1", BIG_V2];
const MODERN = { versionNegotiation: { mode: { pin: "2026-07-28" as const } } };
const BATCH = 100;
const NO_TIMEOUT = { timeout: 2 ** 31 - 1 };

const dir = await Deno.makeTempDir({ prefix: "spillway-gateway-peers-" });
const config = `${dir}/config.toml`;
await Deno.writeTextFile(config, upstreamConfig());
const modernConfig = `${dir}/modern.toml`;
await Deno.writeTextFile(
  modernConfig,
  `[providers.mcp.conf]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ${JSON.stringify(BIG_V2_ARGS)}
`,
);
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

async function connect(
  transport: StdioClientTransport | StreamableHTTPClientTransport,
  modern = false,
) {
  const client = new Client({ name: "gateway-peers-bench", version: "0" }, modern ? MODERN : {});
  await client.connect(transport);
  if (modern && client.getNegotiatedProtocolVersion() !== "2026-07-28") {
    throw new Error(`not 2026-07-28: ${client.getNegotiatedProtocolVersion()}`);
  }
  clients.push(client);
  return client;
}

const stdio = (command: string, args: string[]) =>
  connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
const http = async (url: string, modern = false) => {
  await accepting(new URL(url));
  return await connect(new StreamableHTTPClientTransport(new URL(url)), modern);
};
const modernHttp = (url: string) => http(url, true);

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
const bigV2Http = async () =>
  `http://127.0.0.1:${await start(
    Deno.execPath(),
    [...BIG_V2_ARGS, "--http", "0"],
    /listening on (\d+)/,
  )}/mcp`;
const serveArgs = (name: string, cli = CLI, runFlags: string[] = [], toml = config) =>
  ["run", "-A", "--quiet", ...runFlags, cli, "serve", "--workspace"]
    .concat([`${dir}/${name}`, "--config", toml, "--quiet"]);
const serveHttp = (args: string[]) =>
  start(Deno.execPath(), [...args, "--http", "127.0.0.1:0", "--no-auth"], /^(http:\S+)$/);

/** One contender: what the client talks to. */
interface Contender {
  readonly transport: "stdio" | "http" | "http 2026";
  readonly name: string;
  readonly client: Client;
  /** Where each result is appended and flushed after its call (the durability floor rows). */
  readonly durable?: Deno.FsFile;
  /** Sequential calls per round, when not `--calls`. */
  readonly calls?: number;
  /** Whether the batch of 100 is run (default: yes). */
  readonly batch?: boolean;
}

async function contenders(): Promise<Contender[]> {
  const supergateway = await npmBin(SUPERGATEWAY, "supergateway");
  const mcpProxy = await npmBin(MCP_PROXY, "mcp-proxy");
  const sgPort = freePort();
  const sgModernPort = freePort();
  const proxyPort = freePort();
  const bareProxyPort = freePort();
  const modernProxyPort = freePort();
  const command = upstream.map((part) => JSON.stringify(part)).join(" ");
  const bigV2Command = [Deno.execPath(), ...BIG_V2_ARGS].map((p) => JSON.stringify(p)).join(" ");
  // One process for the 2025 row and the 2026 client's row beside it, started when first asked.
  let spillwayStarted: Promise<string> | undefined;
  const spillwayHttp = () => spillwayStarted ??= serveHttp(serveArgs("http"));
  const proxyArgs = (port: number, extra: string[], upstreamCommand: string[]) => [
    ...["--port", String(port), "--host", "127.0.0.1", "--server", "stream", ...extra, "--"],
    ...upstreamCommand,
  ];
  type Entry = [Contender["transport"], string, () => Promise<Client>, Partial<Contender>?];
  const list: Entry[] = [
    ["stdio", "direct", () => stdio(upstream[0]!, UPSTREAM_ARGS)],
    [
      "stdio",
      "spillway serve --stdio",
      () => stdio(Deno.execPath(), [...serveArgs("stdio"), "--stdio"]),
    ],
    [
      "stdio",
      "durable relay (append + fdatasync)",
      () =>
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
      () =>
        upstreamHttp().then((url) =>
          stdio(supergateway, ["--streamableHttp", url, "--logLevel", "none"])
        ),
    ],
    ["http", "direct", () => upstreamHttp().then((url) => http(url))],
    ["http", "spillway serve --http", () => spillwayHttp().then((url) => http(url))],
    [
      "http",
      `supergateway --stateful (${SUPERGATEWAY.split("@")[1]})`,
      () =>
        start(supergateway, [
          ...["--stdio", command, "--outputTransport", "streamableHttp", "--stateful"],
          ...["--port", String(sgPort)],
        ], /(Listening on port \d+)/).then(() => http(`http://127.0.0.1:${sgPort}/mcp`)),
    ],
    [
      "http",
      `mcp-proxy (${MCP_PROXY.split("@")[1]})`,
      () =>
        start(mcpProxy, proxyArgs(proxyPort, [], upstream), /(starting server on port)/)
          .then(() => http(`http://127.0.0.1:${proxyPort}/mcp`)),
    ],
    [
      "http",
      `mcp-proxy --no-eventStore`,
      () =>
        start(
          mcpProxy,
          proxyArgs(bareProxyPort, ["--no-eventStore"], upstream),
          /(starting server on port)/,
        ).then(() => http(`http://127.0.0.1:${bareProxyPort}/mcp`)),
    ],
    ["http 2026", "direct", () => bigV2Http().then(modernHttp)],
    [
      "http 2026",
      "spillway serve --http",
      () => serveHttp(serveArgs("modern", CLI, [], modernConfig)).then(modernHttp),
    ],
    [
      "http 2026",
      "spillway serve --http, the 2025 rows' process",
      () => spillwayHttp().then(modernHttp),
    ],
    [
      "http 2026",
      `mcp-proxy (${MCP_PROXY.split("@")[1]})`,
      () =>
        start(
          mcpProxy,
          proxyArgs(modernProxyPort, [], [Deno.execPath(), ...BIG_V2_ARGS]),
          /(starting server on port)/,
        ).then(() => modernHttp(`http://127.0.0.1:${modernProxyPort}/mcp`)),
    ],
    [
      "http 2026",
      `supergateway (${SUPERGATEWAY.split("@")[1]}, an upstream per request)`,
      () =>
        start(supergateway, [
          ...["--stdio", bigV2Command, "--outputTransport", "streamableHttp"],
          ...["--port", String(sgModernPort)],
        ], /(Listening on port \d+)/).then(() =>
          modernHttp(`http://127.0.0.1:${sgModernPort}/mcp`)
        ),
      { calls: SLOW_CALLS, batch: false },
    ],
  ];
  if (BASELINE !== undefined) {
    const cli = `${BASELINE}/src/cli.ts`;
    const flags = ["--config", `${BASELINE}/deno.json`];
    list.push(
      [
        "stdio",
        `spillway serve --stdio (${BASELINE})`,
        () => stdio(Deno.execPath(), [...serveArgs("base-stdio", cli, flags), "--stdio"]),
      ],
      [
        "http",
        `spillway serve --http (${BASELINE})`,
        () => serveHttp(serveArgs("base-http", cli, flags)).then((url) => http(url)),
      ],
    );
  }
  const chosen = list.filter(([transport, name]) => ONLY?.test(`${transport} ${name}`) ?? true);
  const started: Contender[] = await Promise.all(
    chosen.map(async ([transport, name, client, extra]) => ({
      transport,
      name,
      client: await client(),
      ...extra,
    })),
  );
  const floors: [Contender["transport"], string, string][] = [
    ["http", "direct", "direct + append and fdatasync"],
    ["http", "mcp-proxy --no-eventStore", "mcp-proxy --no-eventStore + append and fdatasync"],
    ["http 2026", "direct", "direct + append and fdatasync"],
    [
      "http 2026",
      `mcp-proxy (${MCP_PROXY.split("@")[1]})`,
      "mcp-proxy + append and fdatasync",
    ],
  ];
  for (const [transport, of, name] of floors) {
    const found = started.find((c) => c.transport === transport && c.name === of);
    if (found === undefined) continue;
    const file = `${dir}/${transport.replace(" ", "-")}-${name.split(" ")[0]}.jsonl`;
    const durable = await Deno.open(file, { create: true, append: true });
    started.push({ transport, name, client: found.client, durable });
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

async function sequential({ client, durable, calls = CALLS }: Contender): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const result = await call(client);
    if (durable !== undefined) await record(durable, [result]);
  }
  return (performance.now() - started) / calls;
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
  const loadAtStart = Deno.loadavg().map((figure) => figure.toFixed(2)).join(" ");
  const all = await contenders();
  for (const { durable } of all) if (durable !== undefined) durableFiles.push(durable);
  // Warm up: every path compiled, every session open.
  for (const contender of all) {
    await sequential(contender);
    if (contender.batch !== false) await concurrent(contender);
  }
  const seq = new Map(all.map((c) => [c, [] as number[]]));
  const par = new Map(all.map((c) => [c, [] as number[]]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = all.map((_, i) => all[(i + round) % all.length]!);
    for (const contender of order) seq.get(contender)!.push(await sequential(contender));
    for (const contender of order) {
      if (contender.batch !== false) par.get(contender)!.push(await concurrent(contender));
    }
  }
  const load = Deno.loadavg().map((figure) => figure.toFixed(2)).join(" ");
  console.log(
    `${ROUNDS} interleaved rounds; ${CALLS} sequential 1 KB calls (supergateway's 2026 row: ` +
      `${SLOW_CALLS}) and one batch of ${BATCH} concurrent 1 KB calls per contender per round; ` +
      `load average at the start ${loadAtStart}, at the end ${load}\n`,
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
    const direct = all.find((c) => c.transport === contender.transport && c.name === "direct");
    const s = seq.get(contender)!;
    const p = par.get(contender)!;
    const ratio = (of: number[], to: number[] | undefined) =>
      to === undefined || to.length === 0 || of.length === 0
        ? "—"
        : (median(of) / median(to)).toFixed(2);
    rows.push([
      contender.transport,
      contender.name,
      median(s).toFixed(2),
      Math.min(...s).toFixed(2),
      ratio(s, direct && seq.get(direct)),
      p.length === 0 ? "—" : median(p).toFixed(1),
      p.length === 0 ? "—" : Math.min(...p).toFixed(1),
      ratio(p, direct && par.get(direct)),
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
