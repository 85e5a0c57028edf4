import assert from "node:assert/strict";
import { indexKeyLines } from "./_key_lines.ts";
import { pathKey } from "./_key_path.ts";

const TEXT = `# comment
[conversation.tools.'*']
run = "ask"
style.inline_results = 5

[conversation.tools.cargo_test]
cancellation_response = """
fake = "not a key"
"""
  size_treshold = "1MB"
[[providers.mcp.list]]
`;

Deno.test("indexKeyLines() finds keys under table headers", () => {
  const lines = indexKeyLines(TEXT);
  assert.equal(lines.get(pathKey(["conversation", "tools", "*"])), 2);
  assert.equal(lines.get(pathKey(["conversation", "tools", "*", "run"])), 3);
  assert.equal(lines.get(pathKey(["conversation", "tools", "*", "style", "inline_results"])), 4);
  assert.equal(lines.get(pathKey(["conversation", "tools", "*", "style"])), 4);
  assert.equal(lines.get(pathKey(["conversation", "tools", "cargo_test", "size_treshold"])), 10);
  assert.equal(lines.get(pathKey(["providers", "mcp", "list"])), 11);
});

Deno.test("indexKeyLines() skips the inside of multi-line strings", () => {
  const lines = indexKeyLines(TEXT);
  assert.equal(lines.get(pathKey(["conversation", "tools", "cargo_test", "fake"])), undefined);
  assert.equal(
    lines.get(pathKey(["conversation", "tools", "cargo_test", "cancellation_response"])),
    7,
  );
});
