/**
 * The npm package beside supergateway's, as a user of `npx` meets them:
 * each installed with npm into an empty folder (the size of its
 * `node_modules`), then, round after round in turn, `npx <bin> --version`
 * until it exits, and the gateway started in front of the same small stdio
 * MCP server until `tools/list` answers: `npx spillway serve --stdio` (the
 * server as an upstream, the client on stdio) and `npx supergateway --stdio`
 * (its Streamable HTTP output, the client over HTTP). Wall times, the median
 * and the best of the rounds.
 *
 * `deno run -A tests/bench/package_start.ts TARBALL [--rounds 7]` (TARBALL
 * from `npm pack`).
 *
 * @module
 */

import { join } from "node:path";
import { freePort } from "../_free_port.ts";
import { INITIALIZE_REQUEST } from "../gateway_fixtures.ts";

const SUPERGATEWAY = "supergateway@4.0.0";
const [tarball] = Deno.args;
const roundsAt = Deno.args.indexOf("--rounds");
const ROUNDS = roundsAt < 0 ? 7 : Number(Deno.args[roundsAt + 1]);
if (tarball === undefined || !tarball.endsWith(".tgz") || !(ROUNDS >= 1)) {
  console.error("usage: package_start.ts TARBALL [--rounds N]  (TARBALL: what npm pack wrote)");
  Deno.exit(2);
}

/** The smallest stdio MCP server: one tool, answered line by line. */
const SERVER = `
const rl = (await import("node:readline")).createInterface({ input: process.stdin });
for await (const line of rl) {
  const m = JSON.parse(line);
  if (m.id === undefined) continue;
  const result = m.method === "initialize"
    ? { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "tiny", version: "1" } }
    : m.method === "tools/list"
    ? { tools: [{ name: "hello", description: "Says hello", inputSchema: { type: "object" } }] }
    : {};
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }) + "\\n");
}
`;

const root = await Deno.makeTempDir({ prefix: "spillway-package-start-" });
try {
  const server = join(root, "server.mjs");
  await Deno.writeTextFile(server, SERVER);
  const spillway = await install(join(root, "spillway"), `${await Deno.realPath(tarball)}`);
  const peer = await install(join(root, "supergateway"), SUPERGATEWAY);
  await Deno.writeTextFile(
    join(spillway, "config.toml"),
    `[providers.mcp.tiny]\ntype = "stdio"\ncommand = "node"\narguments = [${
      JSON.stringify(server)
    }]\n`,
  );
  console.log(`installed: spillway ${await size(spillway)}, supergateway ${await size(peer)}`);
  const times: Record<string, number[]> = {};
  const add = (name: string, ms: number) => (times[name] ??= []).push(ms);
  for (let round = 0; round < ROUNDS; round++) {
    add("spillway --version", await timed(() => run(spillway, ["spillway", "--version"])));
    add("supergateway --version", await timed(() => run(peer, ["supergateway", "--version"])));
    add("spillway serve --stdio → tools/list", await spillwayToolsList(spillway));
    add("supergateway --stdio → tools/list", await supergatewayToolsList(peer, server));
  }
  for (const [name, ms] of Object.entries(times)) {
    const sorted = ms.toSorted((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    console.log(
      `${name.padEnd(38)} median ${median.toFixed(0)} ms, best ${sorted[0]!.toFixed(0)} ms`,
    );
  }
} finally {
  await Deno.remove(root, { recursive: true });
}

/** `npm install SPEC` into a new folder; returns it. */
async function install(dir: string, spec: string): Promise<string> {
  await Deno.mkdir(dir);
  const npm = await new Deno.Command("npm", {
    args: ["install", "--no-audit", "--no-fund", "--prefer-offline", spec],
    cwd: dir,
    stdout: "null",
  }).output();
  if (!npm.success) throw new Error(`npm install ${spec} failed`);
  return dir;
}

/** The size of `dir`'s node_modules, as `du` counts it. */
async function size(dir: string): Promise<string> {
  const du = await new Deno.Command("du", { args: ["-sh", join(dir, "node_modules")] }).output();
  return new TextDecoder().decode(du.stdout).split("\t")[0]!;
}

async function timed(work: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function run(cwd: string, args: string[]): Promise<void> {
  const done = await new Deno.Command("npx", { args, cwd, stdout: "null", stderr: "null" })
    .output();
  if (!done.success) throw new Error(`npx ${args.join(" ")} failed in ${cwd}`);
}

/** From spawning `npx spillway serve --stdio` to the answer of `tools/list`, in ms. */
async function spillwayToolsList(dir: string): Promise<number> {
  const start = performance.now();
  const child = new Deno.Command("npx", {
    args: [
      "spillway",
      "serve",
      "--stdio",
      "--quiet",
      "--workspace",
      "ws",
      "--config",
      "config.toml",
    ],
    cwd: dir,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const send = (message: object) =>
    writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
  await send(INITIALIZE_REQUEST);
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  let text = "";
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    text += chunk;
    if (/"id":2[,}]/.test(text)) break;
  }
  const elapsed = performance.now() - start;
  if (!text.includes('"hello"')) throw new Error(`spillway listed no tool: ${text}`);
  await writer.close();
  await child.status;
  return elapsed;
}

/** From spawning `npx supergateway --stdio …` to the answer of `tools/list` over HTTP, in ms. */
async function supergatewayToolsList(dir: string, server: string): Promise<number> {
  const port = await freePort();
  const start = performance.now();
  const child = new Deno.Command("npx", {
    args: [
      "supergateway",
      "--stdio",
      `node ${server}`,
      "--outputTransport",
      "streamableHttp",
      "--port",
      String(port),
      "--logLevel",
      "none",
    ],
    cwd: dir,
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  const url = `http://127.0.0.1:${port}/mcp`;
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  for (;;) {
    try {
      const init = await fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify(INITIALIZE_REQUEST),
      });
      await init.body?.cancel();
      const session = init.headers.get("mcp-session-id");
      const list = await fetch(url, {
        method: "POST",
        headers: { ...headers, ...(session === null ? {} : { "mcp-session-id": session }) },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      });
      const text = await list.text();
      if (text.includes('"hello"')) break;
    } catch {
      // Not listening yet: the next attempt.
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const elapsed = performance.now() - start;
  // npx, the shell it runs and supergateway: the whole group.
  Deno.kill(-child.pid, "SIGTERM");
  await child.status;
  return elapsed;
}
