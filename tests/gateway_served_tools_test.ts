/**
 * What `spillway serve` offers: the tools it was configured to serve, the
 * builtin file tools only when the configuration names them (`query`'s
 * assistant keeps them).
 */

import assert from "node:assert/strict";
import { parseConfig } from "../src/config/parse_config.ts";
import { createRuntime } from "../src/runtime/create_runtime.ts";
import { StepProvider } from "../src/testing/step_provider.ts";
import { startHttpGateway, textOf, upstreamConfig } from "./gateway_fixtures.ts";
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
