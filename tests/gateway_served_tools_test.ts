/**
 * What `spillway serve` offers and says: the tools it was configured to
 * serve (the builtin file tools only when the configuration names them,
 * while `query`'s assistant keeps them), and, over HTTP, its URL as the one
 * line on stdout once it listens, notices and logs on stderr.
 */

import assert from "node:assert/strict";
import { parseConfig } from "../src/config/parse_config.ts";
import { createRuntime } from "../src/runtime/create_runtime.ts";
import { StepProvider } from "../src/testing/step_provider.ts";
import { Client, StreamableHTTPClientTransport } from "../src/service/sdk.ts";
import { CLI, startHttpGateway, StreamLines, textOf, upstreamConfig } from "./gateway_fixtures.ts";
import { join } from "./_paths.ts";

const FILE_TOOLS = ["fs_list_files", "fs_read_file"];

async function listed(config: string): Promise<string[]> {
  await using gw = await startHttpGateway({ config });
  const { tools } = await (await gw.client()).listTools();
  return tools.map((tool) => tool.name);
}

Deno.test("serve lists no builtin tool the configuration does not name", async () => {
  const names = await listed(upstreamConfig());
  assert.ok(names.includes("big"), names.join(", "));
  for (const tool of FILE_TOOLS) assert.ok(!names.includes(tool), `${tool} is served`);
});

Deno.test("serve lists a builtin tool once the configuration names it, and runs it", async () => {
  const config = upstreamConfig(`[conversation.tools.fs_list_files]\nsize_threshold = "64KB"\n`);
  const names = await listed(config);
  assert.ok(names.includes("fs_list_files"));
  assert.ok(!names.includes("fs_read_file"), "only the one named");
  await using gw = await startHttpGateway({ config });
  await Deno.writeTextFile(join(gw.workspace, "here.txt"), "x");
  const result = await (await gw.client()).callTool({
    name: "fs_list_files",
    arguments: { path: "." },
  });
  assert.match(textOf(result), /^here\.txt$/m);
});

Deno.test("an entry named like a builtin but routed to an upstream serves the upstream's tool", async () => {
  await using gw = await startHttpGateway({
    config: upstreamConfig(
      `[conversation.tools.fs_read_file]\nsource = "mcp.conf.test_simple_text"\n`,
    ),
  });
  const client = await gw.client();
  const { tools } = await client.listTools();
  assert.equal(tools.filter((tool) => tool.name === "fs_read_file").length, 1);
  const result = await client.callTool({ name: "fs_read_file", arguments: {} });
  assert.equal(textOf(result), "This is a simple text response for testing.");
});

Deno.test("query's assistant keeps the builtin tools without configuring them", async () => {
  const workspace = await Deno.makeTempDir({ prefix: "spillway-query-tools-" });
  const runtime = await createRuntime({
    workspace,
    config: parseConfig(""),
    provider: new StepProvider([]),
  });
  try {
    assert.deepEqual(runtime.tools.map((tool) => tool.name), FILE_TOOLS);
  } finally {
    await runtime.close();
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("serve --http prints its URL on stdout, one line once it listens; notices go to stderr", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway-serve-url-" });
  const config = join(dir, "config.toml");
  await Deno.writeTextFile(
    config,
    upstreamConfig(`[conversation.tools.'*']\nsize_threshold = "1KB"\n`),
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", CLI, "serve", "--http", "127.0.0.1:0", "--config", config]
      .concat(["--workspace", join(dir, "ws")]),
    cwd: dir,
    env: { SPILLWAY_SERVE_TOKEN: "t", XDG_CONFIG_HOME: join(dir, "no-user-config") },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = new StreamLines(child.stdout);
  const stderr = new StreamLines(child.stderr);
  try {
    const [line] = await stdout.waitFor(/^.*$/);
    const url = new URL(line);
    assert.match(line, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.notEqual(url.port, "0", "the real port");
    await stderr.waitFor(new RegExp(` tools at ${line.replaceAll(".", "\\.")}$`));
    const client = new Client({ name: "url-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: "Bearer t" } },
      }),
    );
    await client.callTool({ name: "big", arguments: { bytes: 5000 } });
    await client.close();
    await stderr.waitFor(/^big: sent 1\.0 KB of 4\.8 KB to the assistant \(size_threshold\)$/);
  } finally {
    child.kill("SIGTERM");
    await child.status;
    const [out] = await Promise.all([stdout.ended, stderr.ended]);
    await Deno.remove(dir, { recursive: true });
    assert.equal(out.length, 1, `stdout: ${out.join("\n")}`);
  }
});
