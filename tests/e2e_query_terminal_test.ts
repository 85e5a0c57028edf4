/**
 * What a person sees from `spillway query` when outside text is hostile or a
 * config entry is misspelled, end to end: `deno run … src/cli.ts query` as a
 * subprocess in a temporary workspace, its stdout and stderr read as bytes.
 *
 * - The scripted model's call ids, tool names and words, a local tool's
 *   name (a config key), an upstream server's tool name, result and stderr,
 *   and a server's name carry OSC, CSI and C1 sequences and bidi controls:
 *   none reaches the terminal raw, each is shown in its visible form.
 * - An entry for a tool no source provides gets one warning line with the
 *   closest existing name, and the turn still runs.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type CliRun, query, REPO, workspaceWith } from "./_cli.ts";

const DENO = JSON.stringify(Deno.execPath());

/**
 * Runs `spillway query --script … go` from the repository root (the configs
 * name examples/… relative to it) on a workspace holding `config` and
 * `script`, removed after.
 */
async function queryWith(config: string, script: string): Promise<CliRun> {
  const workspace = await workspaceWith(config, { "script.toml": script });
  try {
    return await query(workspace, ["--script", join(workspace, "script.toml"), "go"], {
      cwd: REPO,
    });
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
}

/** Fails when the bytes hold ESC, a C1 control, another C0 control but \t and \n, or a bidi control. */
function assertNothingRaw(bytes: Uint8Array, what: string): void {
  assert.ok(!bytes.includes(0x1b), `${what} holds a raw ESC byte`);
  const text = new TextDecoder().decode(bytes);
  // deno-lint-ignore no-control-regex
  const raw = new RegExp(
    "[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]",
  );
  const found = raw.exec(text);
  assert.equal(found, null, `${what} holds U+${found?.[0].charCodeAt(0).toString(16)}`);
}

Deno.test("query shows hostile ids, tool and server names, results and stderr inert", async () => {
  const config = `
[conversation.tools.'*']
size_threshold = "1KB"

# A local tool whose name (this key) carries an OSC title change and U+202E.
[conversation.tools."wc\\u001b]0;owned\\u0007\\u202e"]
source = "local"
command = [${DENO}, "run", "examples/tools/word_count.ts"]

# An upstream server whose tool name, answer and stderr are hostile.
[providers.mcp.hostile]
type = "stdio"
command = ${DENO}
arguments = ["run", "--quiet", "--allow-env", "tests/fixtures/escapes/hostile_server.ts"]
`;
  const script = `
[[cycles]]
text = "Calling \\u001b]0;title\\u0007 tools \\u202e"
tool_calls = [
  { id = "call\\u001b[31m\\u202e1", name = "wc\\u001b]0;owned\\u0007\\u202e", arguments = { text = "one \\u001b[2J two" } },
  { id = "call\\u009b2J2", name = "peek\\u001b]0;owned\\u0007\\u009b2J\\u202e", arguments = {} },
  { id = "call3", name = "nope\\u001b[2J\\u2066", arguments = {} },
]

[[cycles]]
text = "done"
`;
  const run = await queryWith(config, script);
  assert.equal(run.code, 0, run.stderr);
  assertNothingRaw(run.bytes.stdout, "stdout");
  assertNothingRaw(run.bytes.stderr, "stderr");

  const out = run.stdout.split("\n");
  const err = run.stderr.split("\n");
  // The model's words and the call lines (arguments are JSON, which escapes C0 already).
  assert.ok(out.includes("assistant: Calling ␛]0;title\\x07 tools \\u202e"), run.stdout);
  assert.ok(
    out.includes('▸ wc␛]0;owned\\x07\\u202e {"text":"one \\u001b[2J two"}  (call␛[31m\\u202e1)'),
    run.stdout,
  );
  assert.ok(out.includes("▸ peek␛]0;owned\\x07\\x9b2J\\u202e {}  (call\\x9b2J2)"), run.stdout);
  // Result lines: the local tool's, the upstream tool's hostile answer, the unknown tool's
  // (which never started, so it has no call line).
  assert.ok(
    out.includes("◂ wc␛]0;owned\\x07\\u202e (call␛[31m\\u202e1) result: 1 line, 26 B"),
    run.stdout,
  );
  assert.ok(out.includes("  │ ␛]8;;http://evil\\x07link␛]8;;\\x07\\u202e"), run.stdout);
  assert.ok(
    out.some((line) => line.startsWith("  ✗ tool nope␛[2J\\u2066 is not available")),
    run.stdout,
  );
  // The notice names the upstream tool; the server's own stderr passes through inert.
  assert.ok(
    err.includes(
      "peek␛]0;owned\\x07\\x9b2J\\u202e: sent 1.0 KB of 2.0 KB to the assistant (size_threshold)",
    ),
    run.stderr,
  );
  assert.ok(err.includes("␛]0;owned-by-stderr\\x07starting"), run.stderr);
});

Deno.test("query's start-up error shows a hostile server name inert", async () => {
  const config = `
[providers.mcp."bad\\u001b]0;owned\\u0007\\u202e"]
type = "stdio"
command = "no-such-mcp-server\\u001b[2J"
`;
  const run = await queryWith(config, `[[cycles]]\ntext = "unused"\n`);
  assert.equal(run.code, 1);
  assertNothingRaw(run.bytes.stdout, "stdout");
  assertNothingRaw(run.bytes.stderr, "stderr");
  assert.equal(
    run.stderr,
    "spillway query: cannot start upstream server mcp.bad␛]0;owned\\x07\\u202e: command not " +
      "found: `no-such-mcp-server␛[2J`\n",
  );
});

Deno.test("query warns about a misspelled tool entry, suggests the tool, and runs", async () => {
  const config = `
[conversation.tools.fs_lst_files]
size_threshold = "1MB"

[conversation.tools.fs_read_file]
size_threshold = "1MB"
`;
  const script = `
[[cycles]]
text = "Listing."
tool_calls = [{ id = "call_1", name = "fs_list_files", arguments = { path = "examples/demo" } }]

[[cycles]]
text = "done"
`;
  const run = await queryWith(config, script);
  assert.equal(run.code, 0, run.stderr);
  const warnings = run.stderr.split("\n").filter((line) => line.startsWith("warning: "));
  assert.equal(warnings.length, 1, run.stderr);
  assert.match(
    warnings[0] ?? "",
    /^warning: conversation\.tools\.fs_lst_files \(\/.+\/config\.toml:3\): no source provides a tool named fs_lst_files, so these settings are never used \(did you mean fs_list_files\?\)$/,
  );
  assert.match(run.stdout, /◂ fs_list_files \(call_1\) result: /);
  assert.match(run.stdout, /Conversation \S+ \(2 model requests, 0 cut responses\)/);
});
