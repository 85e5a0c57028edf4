/**
 * Configured tools under plain `node`, from the installed npm package:
 * `createRuntime` on a workspace whose config names a local command and an
 * upstream MCP server over stdio (both run by the node on PATH), one turn
 * calling both; each 600 KB result is cut to 256 KB, noticed and recorded.
 */

import assert from "node:assert/strict";
import { installPackage, PACKAGE_REQUIRED, PACKAGE_TARBALL } from "./_installed_package.ts";
import { join } from "./_paths.ts";

/** The smallest stdio MCP server: one tool, `hello`, returning 600 KB. */
const SERVER = `
const rl = (await import("node:readline")).createInterface({ input: process.stdin });
for await (const line of rl) {
  const m = JSON.parse(line);
  if (m.id === undefined) continue;
  const result = m.method === "initialize"
    ? { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "tiny", version: "1" } }
    : m.method === "tools/list"
    ? { tools: [{ name: "hello", description: "Says hello", inputSchema: { type: "object" } }] }
    : m.method === "tools/call"
    ? { content: [{ type: "text", text: "hello ".repeat(100000) }] }
    : {};
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }) + "\\n");
}
`;

const CONFIG = `
[conversation.tools.shout]
source = "local"
command = ["node", "-e", "process.stdout.write('HI '.repeat(200000))"]

[providers.mcp.tiny]
type = "stdio"
command = "node"
arguments = ["server.mjs"]
`;

const PROGRAM = `
import { createRuntime } from "spillway";
const runtime = await createRuntime({
  workspace: "ws",
  provider: ({ cycle }) => Promise.resolve(
    cycle === 0
      ? {
        text: "Both.",
        toolCalls: [
          { id: "c1", name: "shout", arguments: {} },
          { id: "c2", name: "hello", arguments: {} },
        ],
      }
      : { text: "Done.", toolCalls: [] },
  ),
});
const turn = await runtime.query("Call both");
console.log(turn.location);
await runtime.close();
`;

Deno.test({
  name: "createRuntime under node, from the package, cuts and records a local tool and an MCP tool",
  ignore: PACKAGE_TARBALL === undefined && !PACKAGE_REQUIRED,
  async fn() {
    const installed = await installPackage();
    try {
      await Deno.mkdir(join(installed.dir, "ws"));
      await Deno.writeTextFile(join(installed.dir, "ws", "config.toml"), CONFIG);
      await Deno.writeTextFile(join(installed.dir, "server.mjs"), SERVER);
      await Deno.writeTextFile(join(installed.dir, "turn.mjs"), PROGRAM);
      const output = await new Deno.Command(join(installed.env.PATH!, "node"), {
        args: ["turn.mjs"],
        cwd: installed.dir,
        env: { ...installed.env, XDG_CONFIG_HOME: installed.dir },
        clearEnv: true,
      }).output();
      const stderr = new TextDecoder().decode(output.stderr);
      assert.equal(output.code, 0, stderr);
      assert.deepEqual(stderr.trimEnd().split("\n").sort(), [
        "hello: sent 256.0 KB of 585.9 KB to the assistant (size_threshold)",
        "shout: sent 256.0 KB of 585.9 KB to the assistant (size_threshold)",
      ]);
      const location = new TextDecoder().decode(output.stdout).trim();
      const responses = (await Deno.readTextFile(location)).trim().split("\n")
        .map((line) => JSON.parse(line))
        .filter((event) => event.type === "tool_call_response");
      assert.deepEqual(responses.map((event) => event.id).sort(), ["c1", "c2"]);
      for (const response of responses) {
        assert.ok(response.content.endsWith("\n... [truncated, 585.9 KB → 256.0 KB]"));
      }
    } finally {
      await installed.remove();
    }
  },
});
