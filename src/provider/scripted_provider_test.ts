import assert from "node:assert/strict";
import { SpillwayError } from "../errors/spillway_error.ts";
import { parseScript, ScriptedProvider } from "./scripted_provider.ts";

const signal = new AbortController().signal;

const SCRIPT = `
[[cycles]]
text = "Let me look at the repository."
tool_calls = [
  { id = "call_1", name = "fs_list_files", arguments = { path = "." } },
  { id = "call_2", name = "cargo_test", arguments = {} },
]

[[cycles]]
text = "All done."
`;

Deno.test("ScriptedProvider answers request N with cycle N, then ends the turn", async () => {
  const provider = new ScriptedProvider(parseScript(SCRIPT, "s.toml"));
  const first = await provider.complete({ messages: [], tools: [], cycle: 0, signal });
  assert.equal(first.text, "Let me look at the repository.");
  assert.deepEqual(first.toolCalls, [
    { id: "call_1", name: "fs_list_files", arguments: { path: "." } },
    { id: "call_2", name: "cargo_test", arguments: {} },
  ]);
  const second = await provider.complete({ messages: [], tools: [], cycle: 1, signal });
  assert.deepEqual(second, { text: "All done.", toolCalls: [] });
  const past = await provider.complete({ messages: [], tools: [], cycle: 7, signal });
  assert.deepEqual(past, { text: "", toolCalls: [] });
});

Deno.test("ScriptedProvider fails a request over its context window like real providers", async () => {
  const provider = new ScriptedProvider(
    parseScript('context_window = "1KB"\n[[cycles]]\ntext="x"'),
  );
  const messages = [{ role: "user" as const, content: "y".repeat(2000) }];
  await assert.rejects(
    provider.complete({ messages, tools: [], cycle: 0, signal }),
    (error: unknown) =>
      error instanceof SpillwayError &&
      /^prompt is too long: \d+ bytes > 1024 maximum$/.test(error.message),
  );
});

Deno.test("parseScript() errors name the file, the key and the value", () => {
  const golden: [string, string][] = [
    [
      "[[cycles]]\ntxt = 1",
      "s.toml: unknown key cycles[0].txt (expected one of: text, tool_calls)",
    ],
    ["[[cycles]]\ntext = 1", "s.toml: cycles[0].text = 1 has the wrong type (expected a string)"],
    [
      '[[cycles]]\ntool_calls = [{ id = "a", name = "" }]',
      's.toml: cycles[0].tool_calls[0].name = "" must be a tool name',
    ],
    [
      '[[cycles]]\ntool_calls = [{ id = "a", name = "t" }, { id = "a", name = "t" }]',
      's.toml: cycles[0].tool_calls[1].id = "a" is used twice',
    ],
    [
      'context_window = "1TB"',
      's.toml: context_window = "1TB": invalid size `1TB`: unknown unit `tb` (expected B, KB, MB, or GB)',
    ],
    ["cycles = 3", "s.toml: cycles must be an array of tables ([[cycles]])"],
  ];
  for (const [text, message] of golden) {
    assert.throws(() => parseScript(text, "s.toml"), { message });
  }
  assert.throws(
    () => parseScript("[[cycles]\n", "s.toml"),
    /^SpillwayError: s\.toml:1:\d+: TOML syntax error/,
  );
});

Deno.test("parseScript() gives calls without an id a stable one", () => {
  const script = parseScript('[[cycles]]\ntool_calls = [{ name = "t" }]');
  assert.equal(script.cycles[0]?.toolCalls[0]?.id, "call_1_1");
});
