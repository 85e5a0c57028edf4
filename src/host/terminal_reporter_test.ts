import assert from "node:assert/strict";
import { join } from "node:path";
import { captureCommandIo } from "../commands/command_io.ts";
import { TerminalReporter } from "./terminal_reporter.ts";

const call = { id: "call_2", name: "noisy_test_run", arguments: { megabytes: 2 } };

async function reporter(
  inlineResults: "off" | "full" | number,
  options: { quiet?: boolean; isTerminal?: boolean } = {},
) {
  const dir = await Deno.makeTempDir();
  const io = { ...captureCommandIo({ cwd: dir }), isTerminal: options.isTerminal ?? false };
  const r = new TerminalReporter({
    io,
    cwd: dir,
    resultsDir: join(dir, "results"),
    quiet: options.quiet ?? false,
    styleFor: () => ({ inlineResults, resultsFileLink: "osc8" }),
  });
  return { r, io, dir };
}

Deno.test("TerminalReporter shows the first lines and links the full result", async () => {
  const { r, io, dir } = await reporter(2);
  r.toolCallStarted(call);
  r.toolCallResult(call, { id: "call_2", content: "one\ntwo\nthree\nfour\n", isError: false });
  assert.equal(
    io.out(),
    '▸ noisy_test_run {"megabytes":2}  (call_2)\n' +
      "◂ noisy_test_run (call_2) result: 4 lines, 19 B\n" +
      "  │ one\n  │ two\n" +
      "  … 2 more lines: full result in results/call_2.txt\n",
  );
  assert.equal(
    await Deno.readTextFile(join(dir, "results", "call_2.txt")),
    "one\ntwo\nthree\nfour\n",
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("TerminalReporter neutralizes escape sequences and marks errors", async () => {
  const { r, io, dir } = await reporter("full");
  r.toolCallResult(call, { id: "call_2", content: "\x1b]0;pwned\x07boom", isError: true });
  assert.equal(io.out(), "◂ noisy_test_run (call_2) error: 1 line, 14 B\n  ✗ ␛]0;pwned\\x07boom\n");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("TerminalReporter prints notices under --quiet, and nothing else", async () => {
  const { r, io, dir } = await reporter(10, { quiet: true });
  r.assistant({ text: "hello", toolCalls: [] });
  r.toolCallStarted(call);
  r.toolCallResult(call, { id: "call_2", content: "x", isError: false });
  r.notice({
    tool: "noisy_test_run",
    callId: "call_2",
    originalBytes: 2 * 1024 * 1024,
    capBytes: 262144,
    cause: "size_threshold",
  });
  assert.equal(io.out(), "");
  assert.equal(
    io.err(),
    "noisy_test_run: sent 256.0 KB of 2.0 MB to the assistant (size_threshold)\n",
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("TerminalReporter uses an OSC 8 link only on a terminal", async () => {
  const { r, io, dir } = await reporter(0, { isTerminal: true });
  r.toolCallResult(call, { id: "call_2", content: "a\nb", isError: false });
  assert.match(
    io.out(),
    // deno-lint-ignore no-control-regex
    /full result in \x1b\]8;;file:\/\/.*call_2\.txt\x1b\\results\/call_2\.txt\x1b\]8;;\x1b\\\n$/,
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("headLines() counts lines and keeps only the first few", async () => {
  const { headLines } = await import("./terminal_reporter.ts");
  assert.deepEqual(headLines("", 3), { count: 0, shown: [] });
  assert.deepEqual(headLines("a\nb\n", 3), { count: 2, shown: ["a", "b"] });
  assert.deepEqual(headLines("a\n\nc", 2), { count: 3, shown: ["a", ""] });
  assert.deepEqual(headLines("x\n".repeat(1000), 1), { count: 1000, shown: ["x"] });
});

Deno.test("writeTextInChunks() writes exactly the UTF-8 of the text, pairs across chunks included", async () => {
  const { writeTextInChunks } = await import("./terminal_reporter.ts");
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "out.txt");
    // Odd-length prefixes shift every surrogate pair across the chunk boundaries.
    for (const prefix of ["", "a", "ab"]) {
      const text = prefix + "😀日本a".repeat(300_000);
      writeTextInChunks(path, text);
      assert.equal(await Deno.readTextFile(path), text);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("TerminalReporter streams the answer as it arrives and ends its line once", async () => {
  const { r, io, dir } = await reporter(2);
  r.assistantText("Reading ");
  r.assistantText("the \x1b[2Jlog.");
  assert.equal(io.out(), "assistant: Reading the ␛[2Jlog.");
  r.assistant({ text: "Reading the \x1b[2Jlog.", toolCalls: [] });
  r.toolCallStarted(call);
  assert.equal(
    io.out(),
    'assistant: Reading the ␛[2Jlog.\n▸ noisy_test_run {"megabytes":2}  (call_2)\n',
  );
  // An answer that failed mid-stream: the host ends the line before its message.
  r.assistantText("Half a sen");
  assert.equal(r.breakLine(), true);
  assert.equal(r.breakLine(), false);
  assert.ok(io.out().endsWith("assistant: Half a sen\n"));
  // A provider that does not stream is shown whole.
  r.assistant({ text: "Done.", toolCalls: [] });
  assert.ok(io.out().endsWith("\nassistant: Done.\n"));
  await Deno.remove(dir, { recursive: true });
});
