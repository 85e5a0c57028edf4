import assert from "node:assert/strict";
import { SimulatedClock } from "xstate";
import { fileURLToPath } from "node:url";
import { parseConfig } from "../config/parse_config.ts";
import { listConfiguredTools } from "./list_configured_tools.ts";

const EXAMPLE_SERVER = fileURLToPath(new URL("../../examples/upstream_server.ts", import.meta.url));

function providers(
  servers: Record<string, { command: string; arguments: string[]; startup_timeout?: number }>,
): string {
  return Object.entries(servers).map(([name, server]) =>
    `[providers.mcp.${name}]\ntype = "stdio"\ncommand = ${JSON.stringify(server.command)}\n` +
    `arguments = ${JSON.stringify(server.arguments)}\n` +
    (server.startup_timeout === undefined ? "" : `startup_timeout = ${server.startup_timeout}\n`)
  ).join("\n");
}

Deno.test("listConfiguredTools() starts each upstream server to list its tools, then stops it", async () => {
  const config = parseConfig(
    `[conversation.tools.say]\nsource = "mcp.demo.echo"\n` +
      `[conversation.tools.shout]\nsource = "mcp.demo.yell"\n` +
      `[conversation.tools.count]\nsource = "local"\ncommand = ["wc"]\n` +
      providers({
        demo: {
          command: Deno.execPath(),
          arguments: ["run", "--quiet", "--allow-env", EXAMPLE_SERVER],
        },
      }),
  );
  const found = await listConfiguredTools(config, { cwd: Deno.cwd() });
  assert.deepEqual(found.notConsulted, []);
  assert.deepEqual(found.sourceTools.get("builtin"), ["fs_list_files", "fs_read_file"]);
  assert.deepEqual(found.sourceTools.get("local"), ["count"]);
  const demo = found.sourceTools.get("mcp.demo") ?? [];
  assert.ok(demo.includes("echo") && demo.includes("big_report"), `demo lists ${demo}`);
  // Own names of every source, plus the entry that picks an existing tool; not the one that does not.
  assert.ok(found.tools.includes("say"));
  assert.ok(!found.tools.includes("shout"));
  assert.deepEqual(
    found.tools.filter((name) => !demo.includes(name)),
    ["fs_list_files", "fs_read_file", "count", "say"],
  );
});

Deno.test("listConfiguredTools() reports servers it could not consult, and why", async () => {
  const config = parseConfig(
    providers({
      missing: { command: "no-such-mcp-server-anywhere", arguments: [] },
      crashing: { command: Deno.execPath(), arguments: ["eval", "Deno.exit(3)"] },
      // Starts, never answers: its startup_timeout ends it.
      silent: {
        command: Deno.execPath(),
        arguments: ["eval", "setInterval(() => {}, 1 << 30)"],
        startup_timeout: 0.5,
      },
    }) + `[providers.mcp.web]\ntype = "http"\nurl = "http://127.0.0.1:9/mcp"\n`,
  );
  const clock = new SimulatedClock();
  const listing = listConfiguredTools(config, { cwd: Deno.cwd(), clock });
  // Every server is starting: half a second passes, and the silent one has not answered.
  clock.increment(500);
  const found = await listing;
  assert.deepEqual(found.notConsulted, [
    {
      source: "mcp.missing",
      reason: "cannot start upstream server mcp.missing: command not found: " +
        "`no-such-mcp-server-anywhere`",
    },
    {
      source: "mcp.crashing",
      reason:
        "cannot start upstream server mcp.crashing: it exited (code 3) during the MCP handshake",
    },
    {
      source: "mcp.silent",
      reason: "cannot start upstream server mcp.silent: it did not answer initialize within 0.5 s",
    },
    {
      source: "mcp.web",
      reason: "cannot start upstream server mcp.web: http://127.0.0.1:9/mcp: it cannot be reached",
    },
  ]);
  assert.deepEqual(found.tools, ["fs_list_files", "fs_read_file"]);
});
