import assert from "node:assert/strict";
import { join } from "node:path";
import { captureCommandIo } from "../commands/command_io.ts";
import { toToolCallResponse } from "../service/to_tool_call_response.ts";
import type { Truncation } from "../size/truncation.ts";
import { TerminalReporter } from "./terminal_reporter.ts";

const call = { id: "call_2", name: "noisy_test_run", arguments: { megabytes: 2 } };

async function reporter(
  inlineResults: "off" | "full" | number,
  options: {
    quiet?: boolean;
    isTerminal?: boolean;
    link?: "off" | "osc8" | "full";
    truncation?: Truncation;
  } = {},
) {
  const dir = await Deno.makeTempDir();
  const io = { ...captureCommandIo({ cwd: dir }), isTerminal: options.isTerminal ?? false };
  const r = new TerminalReporter({
    io,
    cwd: dir,
    resultsDir: join(dir, "results"),
    quiet: options.quiet ?? false,
    styleFor: () => ({
      inlineResults,
      resultsFileLink: options.link ?? "osc8",
      ...(options.truncation === undefined ? {} : { truncation: options.truncation }),
    }),
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

Deno.test("TerminalReporter shows a result without text as its placeholder lines, not as empty", async () => {
  const { r, io, dir } = await reporter(10);
  const shot = { id: "call_3", name: "screenshot", arguments: {} };
  r.toolCallResult(
    shot,
    toToolCallResponse("call_3", {
      content: [
        { type: "image", data: btoa("x".repeat(3000)), mimeType: "image/png" },
        { type: "resource_link", uri: "file:///tmp/shot.png", name: "shot.png" },
      ],
    }),
  );
  assert.equal(
    io.out(),
    "◂ screenshot (call_3) result: 2 lines, 74 B\n" +
      "  │ [image: image/png, 2.9 KB]\n" +
      "  │ [resource_link: shot.png, file:///tmp/shot.png]\n",
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("TerminalReporter neutralizes escape sequences and marks errors", async () => {
  const { r, io, dir } = await reporter("full");
  r.toolCallResult(call, { id: "call_2", content: "\x1b]0;pwned\x07boom", isError: true });
  assert.equal(io.out(), "◂ noisy_test_run (call_2) error: 1 line, 14 B\n  ✗ ␛]0;pwned\\x07boom\n");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("TerminalReporter prints notices (and the cut result's file) under --quiet, and nothing else", async () => {
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
    "noisy_test_run: sent 256.0 KB of 2.0 MB to the assistant (size_threshold)\n" +
      "  full result: results/call_2.txt\n",
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
  const { headLines } = await import("./preview_lines.ts");
  assert.deepEqual(headLines("", 3), { count: 0, shown: [] });
  assert.deepEqual(headLines("a\nb\n", 3), { count: 2, shown: ["a", "b"] });
  assert.deepEqual(headLines("a\n\nc", 2), { count: 3, shown: ["a", ""] });
  assert.deepEqual(headLines("x\n".repeat(1000), 1), { count: 1000, shown: ["x"] });
});

const cutNotice = {
  tool: "noisy_test_run",
  callId: "call_2",
  originalBytes: 10 * 1024 * 1024,
  capBytes: 262144,
  cause: "size_threshold" as const,
};

Deno.test("TerminalReporter bounds a 10 MB line without newline to a few KB, and links the rest", async () => {
  const { r, io, dir } = await reporter(10);
  const line = "z".repeat(10 * 1024 * 1024);
  r.toolCallResult(call, { id: "call_2", content: line, isError: false });
  assert.equal(
    io.out(),
    "◂ noisy_test_run (call_2) result: 1 line, 10.0 MB\n" +
      `  │ ${"z".repeat(1024)}… ${10 * 1024 * 1024 - 1024} more bytes\n` +
      "  … full result in results/call_2.txt\n",
  );
  assert.equal((await Deno.stat(join(dir, "results", "call_2.txt"))).size, line.length);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("TerminalReporter counts the bytes of a line it holds only the head of", async () => {
  const { r, io, dir } = await reporter(10);
  // A 3 MB output without newline, too large to hold: content is its head.
  const path = join(dir, "output.txt");
  await Deno.writeTextFile(path, "z".repeat(3_000_000));
  const head = "z".repeat(2 * 1024 * 1024);
  const window = { tail: head, bytes: 3_000_000, lines: 1, path, temporary: true };
  r.toolCallResult(call, { id: "call_2", content: head, isError: false, window });
  assert.equal(
    io.out(),
    "◂ noisy_test_run (call_2) result: 1 line, 2.8 MB\n" +
      `  │ ${"z".repeat(1024)}… ${3_000_000 - 1024} more bytes\n` +
      "  … full result in results/call_2.txt\n",
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("TerminalReporter's preview stays within PREVIEW_BYTES whatever inline_results says, except full", async () => {
  const { PREVIEW_BYTES } = await import("./terminal_reporter.ts");
  const content = "0123456789".repeat(20).concat("\n").repeat(5000); // 5000 lines of 201 bytes
  const bounded = await reporter(100_000);
  bounded.r.toolCallResult(call, { id: "call_2", content, isError: false });
  const shown = bounded.io.out().split("\n").filter((l) => l.startsWith("  │ "));
  const bytes = shown.reduce((sum, l) => sum + l.length - 4, 0);
  // The budget, plus the "… N more bytes" note of the line it ended in.
  assert.ok(bytes <= PREVIEW_BYTES + 32, `${bytes} bytes shown`);
  assert.ok(shown.length >= 15, `${shown.length} lines shown`);
  assert.match(
    bounded.io.out(),
    new RegExp(`  … ${5000 - shown.length} more lines: full result in`),
  );
  const full = await reporter("full");
  full.r.toolCallResult(call, { id: "call_2", content, isError: false });
  assert.equal(full.io.out().split("\n").filter((l) => l.startsWith("  │ ")).length, 5000);
  await Deno.remove(bounded.dir, { recursive: true });
  await Deno.remove(full.dir, { recursive: true });
});

Deno.test("TerminalReporter saves a cut response under --quiet (mode 0600) and links it with the notice", async () => {
  const { r, io, dir } = await reporter(10, { quiet: true });
  const content = "tail matters\n".repeat(1000);
  r.toolCallStarted(call);
  r.toolCallResult(call, { id: "call_2", content, isError: false });
  r.notice(cutNotice);
  r.notice({ ...cutNotice, capBytes: 100_000, cause: "batch ceiling" });
  assert.equal(io.out(), "");
  assert.equal(
    io.err(),
    "noisy_test_run: sent 256.0 KB of 10.0 MB to the assistant (size_threshold)\n" +
      "  full result: results/call_2.txt\n" +
      "noisy_test_run: sent 97.6 KB of 10.0 MB to the assistant (batch ceiling)\n",
  );
  const path = join(dir, "results", "call_2.txt");
  assert.equal(await Deno.readTextFile(path), content);
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
  assert.equal((await Deno.stat(join(dir, "results"))).mode! & 0o777, 0o700);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("TerminalReporter links a cut response once, and also when results_file_link is off", async () => {
  const shown = await reporter(1);
  shown.r.toolCallResult(call, { id: "call_2", content: "a\nb\nc", isError: false });
  shown.r.notice(cutNotice);
  assert.match(shown.io.out(), /full result in results\/call_2\.txt\n$/);
  assert.doesNotMatch(shown.io.err(), /full result/);
  const off = await reporter(10, { link: "off" });
  off.r.toolCallResult(call, { id: "call_2", content: "whole", isError: false });
  off.r.notice(cutNotice);
  assert.doesNotMatch(off.io.out(), /full result/);
  assert.ok(off.io.err().endsWith("\n  full result: results/call_2.txt\n"), off.io.err());
  await Deno.remove(shown.dir, { recursive: true });
  await Deno.remove(off.dir, { recursive: true });
});

Deno.test("TerminalReporter never overwrites an earlier turn's full result of the same call id", async () => {
  const { r, dir } = await reporter(0);
  r.toolCallResult(call, { id: "call_2", content: "first\nturn", isError: false });
  const { TerminalReporter } = await import("./terminal_reporter.ts");
  const later = new TerminalReporter({
    io: captureCommandIo({ cwd: dir }),
    cwd: dir,
    resultsDir: join(dir, "results"),
    styleFor: () => ({ inlineResults: 0, resultsFileLink: "osc8" }),
  });
  later.toolCallResult(call, { id: "call_2", content: "second\nturn", isError: false });
  assert.equal(await Deno.readTextFile(join(dir, "results", "call_2.txt")), "first\nturn");
  assert.equal(await Deno.readTextFile(join(dir, "results", "call_2-2.txt")), "second\nturn");
  await Deno.remove(dir, { recursive: true });
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

const TEST_RUN = Array.from({ length: 8 }, (_, i) => `test ${i + 1} ... ok`).join("\n") +
  "\ntest result: FAILED. 7 passed; 1 failed\n";

Deno.test("TerminalReporter previews a tail tool's last lines, what a cut keeps", async () => {
  const { r, io, dir } = await reporter(3, { truncation: { strategy: "tail", headPercent: 50 } });
  r.toolCallResult(call, { id: "call_2", content: TEST_RUN, isError: false });
  assert.equal(
    io.out(),
    "◂ noisy_test_run (call_2) result: 9 lines, 152 B\n" +
      "  … 6 earlier lines: full result in results/call_2.txt\n" +
      "  │ test 7 ... ok\n" +
      "  │ test 8 ... ok\n" +
      "  │ test result: FAILED. 7 passed; 1 failed\n",
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("TerminalReporter previews a head_tail tool's two ends, split as truncation_split says", async () => {
  const { r, io, dir } = await reporter(4, {
    truncation: { strategy: "head_tail", headPercent: 25 },
    link: "off",
  });
  r.toolCallResult(call, { id: "call_2", content: TEST_RUN, isError: false });
  assert.equal(
    io.out(),
    "◂ noisy_test_run (call_2) result: 9 lines, 152 B\n" +
      "  │ test 1 ... ok\n" +
      "  … 5 more lines\n" +
      "  │ test 7 ... ok\n" +
      "  │ test 8 ... ok\n" +
      "  │ test result: FAILED. 7 passed; 1 failed\n",
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("TerminalReporter keeps a tail preview within PREVIEW_BYTES from the end", async () => {
  const { PREVIEW_BYTES } = await import("./terminal_reporter.ts");
  const { r, io, dir } = await reporter(100_000, {
    truncation: { strategy: "tail", headPercent: 50 },
  });
  const content = "0123456789".repeat(20).concat("\n").repeat(5000) + "the end\n";
  r.toolCallResult(call, { id: "call_2", content, isError: false });
  const shown = io.out().split("\n").filter((l) => l.startsWith("  │ "));
  const bytes = shown.reduce((sum, l) => sum + l.length - 4, 0);
  assert.ok(bytes <= PREVIEW_BYTES + 32, `${bytes} bytes shown`);
  assert.equal(shown.at(-1), "  │ the end");
  assert.match(io.out(), new RegExp(`\n  … ${5001 - shown.length} earlier lines: full result in`));
  await Deno.remove(dir, { recursive: true });
});
