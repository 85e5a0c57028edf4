import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../cli.ts";
import { captureCommandIo } from "./command_io.ts";

async function workspaceWith(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir();
  for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(join(dir, name), text);
  return dir;
}

const SCRIPT = `
[[cycles]]
text = "Looking."
tool_calls = [
  { id = "call_1", name = "fs_read_file", arguments = { path = "big.txt" } },
  { id = "call_2", name = "no_such_tool", arguments = {} },
]

[[cycles]]
text = "Done."
`;

Deno.test("query runs a turn, prints calls and notices, and records the capped response", async () => {
  const dir = await workspaceWith({ "script.toml": SCRIPT, "big.txt": "word ".repeat(100_000) });
  try {
    const io = captureCommandIo({ cwd: dir });
    const code = await main(
      ["query", "--workspace", "ws", "--script", "script.toml", "--inspect", "inspect.jsonl", "go"],
      io,
    );
    assert.equal(code, 0, io.err());
    assert.equal(
      io.err(),
      "fs_read_file: sent 256.0 KB of 488.2 KB to the assistant (size_threshold)\n",
    );
    const out = io.out();
    assert.match(out, /^assistant: Looking\.\n/);
    assert.ok(out.includes(`▸ fs_read_file {"path":"big.txt"}  (call_1)\n`), out);
    assert.match(out, /◂ fs_read_file \(call_1\) result: 1 line, 488\.2 KB\n/);
    assert.match(
      out,
      /◂ no_such_tool \(call_2\) error: 1 line, \d+ B\n {2}✗ tool no_such_tool is not available/,
    );
    assert.match(out, /\nassistant: Done\.\n/);
    const last = /Conversation (\S+) \(2 model requests, 1 cut response\): (\S+)\n$/.exec(out);
    assert.ok(last, out);
    const events = (await Deno.readTextFile(join(dir, last[2]!))).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    const responses = events.filter((e) => e.type === "tool_call_response");
    assert.equal(responses.length, 2);
    assert.ok(responses[0].content.endsWith("\n... [truncated, 488.2 KB → 256.0 KB]"));
    assert.ok(new TextEncoder().encode(responses[0].content).length <= 262144);
    assert.match(responses[1].content, /^tool no_such_tool is not available/);
    assert.equal(responses[1].is_error, true);
    const inspection = await Deno.readTextFile(join(dir, "inspect.jsonl"));
    // The public state names: the turn's, its phase's and the commit's.
    for (
      const [actor, state] of [["turn", "toolPhase"], ["phase", "committing"], [
        "commit",
        "releasing",
      ]]
    ) {
      assert.match(inspection, new RegExp(`"actor":"${actor}","event":"[^"]+","state":"${state}"`));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("query --quiet prints only the notice and the conversation line", async () => {
  const dir = await workspaceWith({ "script.toml": SCRIPT, "big.txt": "word ".repeat(100_000) });
  try {
    const io = captureCommandIo({ cwd: dir });
    assert.equal(await main(["query", "--quiet", "--script", "script.toml", "go"], io), 0);
    assert.match(io.err(), /^fs_read_file: sent 256\.0 KB of 488\.2 KB to the assistant/);
    assert.match(io.out(), /^Conversation \S+ \(2 model requests, 1 cut response\): \.spillway\//);
    assert.equal(io.out().split("\n").length, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("query reports a failed turn, a bad script and a missing prompt", async () => {
  const dir = await workspaceWith({
    "small.toml": 'context_window = "1KB"\n[[cycles]]\ntext = "hi"',
    "bad.toml": "[[cycles]]\ntxt = 1",
  });
  try {
    const tooLong = captureCommandIo({ cwd: dir });
    assert.equal(await main(["query", "--script", "small.toml", "x".repeat(2000)], tooLong), 1);
    assert.match(tooLong.err(), /^The turn failed: prompt is too long: \d+ bytes > 1024 maximum\n/);
    const bad = captureCommandIo({ cwd: dir });
    assert.equal(await main(["query", "--script", "bad.toml", "go"], bad), 1);
    assert.match(bad.err(), /bad\.toml: unknown key cycles\[0\]\.txt/);
    const none = captureCommandIo({ cwd: dir });
    assert.equal(await main(["query"], none), 2);
    assert.match(none.err(), /missing the prompt/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
