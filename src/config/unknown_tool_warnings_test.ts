import assert from "node:assert/strict";
import { parseConfig } from "./parse_config.ts";
import { unknownToolWarnings } from "./unknown_tool_warnings.ts";

const CONFIG = parseConfig(
  `[conversation.tools.'*']
size_threshold = "1MB"

[conversation.tools.fs_list_files]
size_threshold = "2MB"

[conversation.tools.fs_lst_files]
size_threshold = "2MB"

[conversation.tools.run_tests]
source = "local"
command = ["deno", "test"]

[conversation.tools.search]
source = "mcp.github.search_code"

[conversation.tools.issues]
source = "mcp.github.list_isues"

[conversation.tools.notes]
source = "mcp.notes"

[conversation.tools.create_pr]
run = "ask"

[providers.mcp.github]
type = "stdio"
command = "github-mcp-server"

[providers.mcp.notes]
type = "stdio"
command = "notes-server"
`,
  "c.toml",
);

Deno.test("unknownToolWarnings() is silent when every entry names a tool", () => {
  const config = parseConfig(`[conversation.tools.fs_list_files]\nrun = "ask"\n`);
  assert.deepEqual(unknownToolWarnings(config, { tools: ["fs_list_files", "fs_read_file"] }), []);
  assert.deepEqual(unknownToolWarnings(parseConfig(""), { tools: [] }), []);
});

Deno.test("unknownToolWarnings() names each entry no source provides, with the closest tool", () => {
  const tools = ["fs_list_files", "fs_read_file", "run_tests", "search", "list_issues", "notes"];
  assert.deepEqual(unknownToolWarnings(CONFIG, { tools }), [
    "conversation.tools.fs_lst_files (c.toml:8): no source provides a tool named fs_lst_files, " +
    "so these settings are never used (did you mean fs_list_files?)",
    "conversation.tools.issues (c.toml:18): no source provides a tool named issues, so these " +
    "settings are never used",
    "conversation.tools.create_pr (c.toml:24): no source provides a tool named create_pr, so " +
    "these settings are never used",
  ]);
});

Deno.test("unknownToolWarnings() checks an entry that picks a server's tool against that server", () => {
  const tools = ["fs_list_files", "fs_read_file", "run_tests", "search", "notes", "create_pr"];
  const sourceTools = new Map([
    ["mcp.github", ["search_code", "list_issues", "create_pr"]],
    ["mcp.notes", ["notes"]],
  ]);
  assert.deepEqual(unknownToolWarnings(CONFIG, { tools, sourceTools }), [
    "conversation.tools.fs_lst_files (c.toml:8): no source provides a tool named fs_lst_files, " +
    "so these settings are never used (did you mean fs_list_files?)",
    'conversation.tools.issues (c.toml:18): source = "mcp.github.list_isues", but ' +
    "providers.mcp.github lists no tool named list_isues (did you mean list_issues?), so query " +
    "and serve will not start",
  ]);
});

Deno.test("unknownToolWarnings() names a server it could not consult and the entries left unchecked", () => {
  const tools = ["fs_list_files", "fs_read_file", "run_tests", "notes"];
  const warnings = unknownToolWarnings(CONFIG, {
    tools,
    sourceTools: new Map([["mcp.notes", ["notes"]]]),
    notConsulted: [{
      source: "mcp.github",
      reason: "cannot start upstream server mcp.github: command not found: `github-mcp-server`",
    }],
  });
  assert.deepEqual(warnings, [
    // A near miss of a known tool is reported even though github's tools are unknown.
    "conversation.tools.fs_lst_files (c.toml:8): no source consulted provides a tool named " +
    "fs_lst_files (did you mean fs_list_files?)",
    "cannot start upstream server mcp.github: command not found: `github-mcp-server`; its tools " +
    "were not listed, so these entries were not checked: search, issues, create_pr",
  ]);
});
