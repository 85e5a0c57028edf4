import assert from "node:assert/strict";
import { loadConfig } from "./load_config.ts";
import { parseConfig } from "./parse_config.ts";
import { ToolConfigWithDefaults } from "./tool_config_with_defaults.ts";

const CONFIG = parseConfig(
  `
[conversation.tools.'*']
run = "ask"
style.inline_results = 3

[conversation.tools.own]
run = "skip"
result = "edit"
size_threshold = "unlimited"
cancellation_response = "No."
style.results_file_link = "full"
timeout = 0.25

[conversation.tools.renamed]
source = "mcp.gh.upstream_name"

[conversation.tools.same_name]
source = "mcp.gh"

[providers.mcp.gh]
type = "stdio"
command = "gh"
`,
  "t.toml",
);

Deno.test("ToolConfigWithDefaults resolves the tool's value first", () => {
  const tool = CONFIG.tool("own");
  assert.equal(tool.run(), "skip");
  assert.equal(tool.result(), "edit");
  assert.equal(tool.sizeThreshold().isUnlimited, true);
  assert.equal(tool.cancellationResponse(), "No.");
  assert.equal(tool.resultsFileLink(), "full");
  assert.equal(tool.timeoutMs(), 250);
  assert.equal(tool.origin("run"), "t.toml");
  assert.equal(tool.hasOwn("run"), true);
});

Deno.test("ToolConfigWithDefaults falls back to '*', then to the built-in defaults", () => {
  const tool = CONFIG.tool("own");
  assert.equal(tool.inlineResults(), 3);
  assert.equal(tool.origin("style.inline_results"), "t.toml");
  assert.equal(tool.hasOwn("style.inline_results"), false);

  const bare = CONFIG.tool("never_configured");
  assert.equal(bare.run(), "ask");
  assert.equal(bare.result(), "unattended");
  assert.equal(bare.origin("result"), "default");
  assert.equal(bare.resolved("size_threshold")?.at, "default");
  assert.equal(bare.sizeThreshold().toString(), "256KB");
});

Deno.test("ToolConfigWithDefaults leaves per-tool keys unset rather than inheriting them", () => {
  const bare = CONFIG.tool("never_configured");
  assert.equal(bare.source(), undefined);
  assert.equal(bare.command(), undefined);
  assert.equal(bare.description(), undefined);
  assert.equal(bare.origin("source"), undefined);
});

Deno.test("ToolConfigWithDefaults.source() names the upstream tool, renamed or not", () => {
  assert.deepEqual(CONFIG.tool("renamed").source(), {
    kind: "mcp",
    text: "mcp.gh.upstream_name",
    server: "gh",
    tool: "upstream_name",
  });
  const same = CONFIG.tool("same_name").source();
  assert.ok(same?.kind === "mcp");
  assert.equal(same.tool, "same_name");
});

Deno.test("ToolConfigWithDefaults cites the line a value was set on", () => {
  assert.equal(CONFIG.tool("own").resolved("result")?.at, "t.toml:8");
});

Deno.test("ToolConfigWithDefaults.describe() cites a setting as config problems do, from any layer", async () => {
  assert.equal(
    CONFIG.tool("renamed").describe("source"),
    't.toml:15: conversation.tools.renamed.source = "mcp.gh.upstream_name"',
  );
  const config = await loadConfig({
    env: {},
    cfg: [
      "providers.mcp.gh.type=stdio",
      "providers.mcp.gh.command=gh",
      "conversation.tools.'my.tool'.source=mcp.gh.x",
    ],
  });
  assert.equal(
    config.tool("my.tool").describe("source"),
    "--cfg conversation.tools.'my.tool'.source=mcp.gh.x: " +
      "conversation.tools.'my.tool'.source = \"mcp.gh.x\"",
  );
  // A built-in default is set by no layer: there is nothing to cite.
  assert.equal(config.tool("my.tool").describe("run"), undefined);
});

Deno.test("ToolConfigWithDefaults built without any layer gives the built-in defaults", () => {
  const tool = new ToolConfigWithDefaults("x", undefined, {});
  assert.equal(tool.run(), "unattended");
  assert.equal(tool.result(), "unattended");
  assert.equal(tool.sizeThreshold().toString(), "256KB");
  assert.equal(tool.inlineResults(), 10);
  assert.equal(tool.resultsFileLink(), "osc8");
  assert.equal(tool.cancellationResponse(), "The user cancelled this tool call.");
  assert.equal(tool.timeoutMs(), 120_000);
  assert.deepEqual(tool.truncation(), { strategy: "head", headPercent: 50 });
  assert.equal(tool.origin("run"), "default");
});

Deno.test("ToolConfigWithDefaults.truncation() resolves the strategy and the split separately", () => {
  const config = parseConfig(`
[conversation.tools.'*']
truncation_split = "30/70"
[conversation.tools.tests]
truncation = "tail"
[conversation.tools.report]
truncation = "head_tail"
[conversation.tools.log]
truncation = "head_tail"
truncation_split = "10/90"
`);
  assert.deepEqual(config.tool("unlisted").truncation(), { strategy: "head", headPercent: 30 });
  assert.deepEqual(config.tool("tests").truncation(), { strategy: "tail", headPercent: 30 });
  assert.deepEqual(config.tool("report").truncation(), { strategy: "head_tail", headPercent: 30 });
  assert.deepEqual(config.tool("log").truncation(), { strategy: "head_tail", headPercent: 10 });
  assert.equal(config.tool("report").origin("truncation_split"), "<inline>");
  assert.equal(config.tool("tests").origin("truncation_split"), "<inline>");
  assert.equal(new ToolConfigWithDefaults("x", undefined, {}).origin("truncation"), "default");
});
