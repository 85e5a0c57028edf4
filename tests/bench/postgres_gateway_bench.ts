/**
 * One call through `spillway serve --http` recording into PostgreSQL, against
 * the same gateway recording into the workspace's files (the baseline):
 * the same SDK client, the same upstream (tests/fixtures/postgres/
 * echo_upstream.ts), a 1 KB result, recorded (one commit: PostgreSQL's
 * transaction, or the file's fsync) before it is delivered. Also 50 calls
 * at once (50 sessions), the throughput one gateway gets from each store.
 *
 * The database is a private server (tests/_postgres.ts), started when the
 * bench loads; the gateways and the server stop when it unloads.
 * Run: `deno task bench tests/bench/postgres_gateway_bench.ts`.
 *
 * @module
 */

import { Client, StreamableHTTPClientTransport } from "../../src/service/sdk.ts";
import { CLI, spawnListening } from "../gateway_fixtures.ts";
import { gatewayConfig } from "../_gateways.ts";
import { PG_PASSWORD, POSTGRES_MISSING, startPostgres } from "../_postgres.ts";

if (POSTGRES_MISSING !== undefined) {
  console.error(`postgres_gateway_bench: skipped: ${POSTGRES_MISSING}`);
} else {
  const server = await startPostgres();
  const url = await server.database("gwbench");
  const dir = Deno.makeTempDirSync({ prefix: "spillway-pg-gateway-bench-" });
  const children: Deno.ChildProcess[] = [];
  const clients: Client[] = [];
  Deno.env.set("SPILLWAY_DATABASE_PASSWORD", PG_PASSWORD);

  /** A gateway on `config`, and `sessions` SDK clients of it. */
  const gateway = async (name: string, config: string, sessions: number) => {
    Deno.writeTextFileSync(`${dir}/${name}.toml`, config);
    const { child, found } = await spawnListening([
      ...["run", "-A", "--quiet", CLI, "serve", "--http", "127.0.0.1:0", "--no-auth"],
      ...["--workspace", `${dir}/${name}`, "--config", `${dir}/${name}.toml`],
    ], /tools at (http:\S+)$/);
    children.push(child);
    const made: Client[] = [];
    for (let i = 0; i < sessions; i++) {
      const sdk = new Client({ name: "spillway-bench", version: "0" });
      await sdk.connect(new StreamableHTTPClientTransport(new URL(found)));
      made.push(sdk);
      clients.push(sdk);
    }
    return made;
  };
  // The file gateway: the same config without [store].
  // No spilling: the call is recorded and delivered, nothing else (a spill would be a
  // second write, which each store does differently).
  const pgConfig = gatewayConfig(url, "", false);
  const fileConfig = pgConfig.slice(pgConfig.indexOf("[providers.mcp.up]"));
  const onFiles = await gateway("files", fileConfig, 50);
  const onPostgres = await gateway("postgres", pgConfig, 50);

  globalThis.addEventListener("unload", () => {
    for (const child of children) child.kill("SIGTERM");
    for (const sdk of clients) void sdk.close();
  });

  const KB = "a 1 KB result, ".repeat(69).slice(0, 1024);
  const call = async (sdk: Client) => {
    const result = await sdk.callTool({ name: "echo", arguments: { text: KB } }, {
      timeout: 2 ** 31 - 1,
    });
    const block = (result.content as { type: string; text?: string }[])[0];
    if (block?.text !== KB) throw new Error("unexpected result");
  };
  for (const sdk of [...onFiles, ...onPostgres]) await call(sdk);

  Deno.bench({
    name: "serve --http on the file store: one 1 KB call",
    group: "postgres-gateway-1KB",
    baseline: true,
    fn: async () => await call(onFiles[0]!),
  });
  Deno.bench({
    name: "serve --http on PostgreSQL: one 1 KB call",
    group: "postgres-gateway-1KB",
    fn: async () => await call(onPostgres[0]!),
  });
  Deno.bench({
    name: "serve --http on the file store: 50 sessions, one 1 KB call each, at once",
    group: "postgres-gateway-1KB-x50",
    baseline: true,
    fn: async () => void await Promise.all(onFiles.map(call)),
  });
  Deno.bench({
    name: "serve --http on PostgreSQL: 50 sessions, one 1 KB call each, at once",
    group: "postgres-gateway-1KB-x50",
    fn: async () => void await Promise.all(onPostgres.map(call)),
  });
}
