/**
 * Outputs too large to hold: a local tool's stdout and `fs_read_file`'s
 * file stream through an output sink; memory keeps a window and the exact
 * size, the sink's file the whole text (exactly, failure status included),
 * and the file goes once the call is released. Through `createRuntime` the
 * cut is the cut of the whole text; through the terminal reporter the
 * full-result file is the whole text; the edit prompt opens all of it.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import { captureCommandIo } from "../src/commands/command_io.ts";
import { parseConfig } from "../src/config/parse_config.ts";
import { TerminalPrompter } from "../src/terminal/terminal_prompter.ts";
import { TerminalReporter } from "../src/terminal/terminal_reporter.ts";
import { createRuntime } from "../src/runtime/create_runtime.ts";
import { BuiltinToolSource } from "../src/service/builtin/builtin_tool_source.ts";
import { LocalToolSource } from "../src/service/local/local_tool_source.ts";
import { spoolSink } from "../src/service/output_sink.ts";
import { toToolCallResponse } from "../src/service/to_tool_call_response.ts";
import type { ToolResult } from "../src/service/tool_source.ts";
import { capText } from "../src/size/cap_text.ts";

const KIB = 1024;
/**
 * Prints `n` numbered lines with some multibyte text, in chunks (no line is
 * held whole). Modes: `fail` prints them to stdout, then "boom" to stderr,
 * and exits 3; `stderr` prints them to stderr, then "summary" to stdout, and
 * exits 4; `noisy` prints them to stderr, then "ok" to stdout, and exits 0.
 */
const PRINTER = `
const n = Number(Deno.args[0]);
const mode = Deno.args[1];
const out = mode === "stderr" || mode === "noisy" ? Deno.stderr : Deno.stdout;
const enc = new TextEncoder();
let batch = "";
for (let i = 0; i < n; i++) {
  batch += "line " + i + " — naïve 漢字 🦕\\n";
  if (batch.length > 30000) { await out.write(enc.encode(batch)); batch = ""; }
}
await out.write(enc.encode(batch));
if (mode === "fail") { console.error("boom"); Deno.exit(3); }
if (mode === "stderr") { console.log("summary"); Deno.exit(4); }
if (mode === "noisy") console.log("ok");
`;
const printed = (n: number) => {
  let text = "";
  for (let i = 0; i < n; i++) text += `line ${i} — naïve 漢字 🦕\n`;
  return text;
};
const deno = Deno.execPath();
const signal = () => new AbortController().signal;
const textOf = (result: ToolResult) => String(result.content[0]?.text ?? "");

async function spool(): Promise<string> {
  return await Deno.makeTempDir({ prefix: "spillway_spool_" });
}

Deno.test("a local tool's large stdout is held as a window; the spool file is the whole text", async () => {
  const dir = await spool();
  const source = new LocalToolSource({
    tools: [{ name: "print", command: [deno, "eval", PRINTER, "100000"] }],
  });
  try {
    const result = await source.call("print", {}, {
      signal: signal(),
      output: spoolSink(dir, 64 * KIB),
    });
    const expected = printed(100_000);
    const window = result.window;
    assert.ok(window !== undefined);
    assert.equal(window.bytes, Buffer.byteLength(expected));
    assert.equal(window.lines, 100_000);
    assert.ok(expected.startsWith(textOf(result)) && textOf(result).length < 70 * KIB);
    assert.ok(expected.endsWith(window.tail) && Buffer.byteLength(window.tail) >= 64 * KIB - 3);
    assert.ok((await Deno.readTextFile(window.path)) === expected, "the spool is not the output");
    assert.equal(window.temporary, true);
    assert.equal(result.isError, undefined);
  } finally {
    await source.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a failing local tool's large stdout: the file holds the status, stderr, then stdout", async () => {
  const dir = await spool();
  const source = new LocalToolSource({
    tools: [{ name: "print", command: [deno, "eval", PRINTER, "40000", "fail"] }],
  });
  try {
    const result = await source.call("print", {}, {
      signal: signal(),
      output: spoolSink(dir, 16 * KIB),
    });
    const whole = "exit code 3\n\nstderr:\nboom\n\nstdout:\n" + printed(40_000);
    assert.equal(result.isError, true);
    assert.ok(whole.startsWith(textOf(result)));
    assert.ok(textOf(result).startsWith("exit code 3\n\nstderr:\nboom\n\nstdout:\nline 0 "));
    assert.equal(result.window?.bytes, Buffer.byteLength(whole));
    assert.ok((await Deno.readTextFile(result.window!.path)) === whole, "file differs");
    // Only the composed file is left: the first spool was dropped.
    assert.equal((await Array.fromAsync(Deno.readDir(dir))).length, 1);
  } finally {
    await source.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a failing local tool's large stderr is held as a window too; the file is the whole text", async () => {
  const dir = await spool();
  const source = new LocalToolSource({
    tools: [{ name: "print", command: [deno, "eval", PRINTER, "40000", "stderr"] }],
  });
  try {
    const result = await source.call("print", {}, {
      signal: signal(),
      output: spoolSink(dir, 16 * KIB),
    });
    // stderr ends with a newline: one blank line before stdout's label, as for a short stderr.
    const whole = "exit code 4\n\nstderr:\n" + printed(40_000) + "\nstdout:\nsummary\n";
    assert.equal(result.isError, true);
    assert.ok(textOf(result).startsWith("exit code 4\n\nstderr:\nline 0 — naïve"));
    assert.ok(whole.startsWith(textOf(result)) && Buffer.byteLength(textOf(result)) <= 16 * KIB);
    const window = result.window!;
    assert.equal(window.bytes, Buffer.byteLength(whole));
    assert.equal(window.lines, 40_000 + 6); // the status, a blank, the label; a blank, the label, "summary"
    assert.ok(window.tail.endsWith("line 39999 — naïve 漢字 🦕\n\nstdout:\nsummary\n"));
    assert.ok(whole.endsWith(window.tail) && Buffer.byteLength(window.tail) >= 16 * KIB - 3);
    assert.ok((await Deno.readTextFile(window.path)) === whole, "file differs");
    // Only the composed file is left: stderr's and stdout's own files were dropped.
    assert.equal((await Array.fromAsync(Deno.readDir(dir))).length, 1);
  } finally {
    await source.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a succeeding local tool's large stderr is dropped, as a small one is: no file left", async () => {
  const dir = await spool();
  const source = new LocalToolSource({
    tools: [{ name: "print", command: [deno, "eval", PRINTER, "40000", "noisy"] }],
  });
  try {
    const result = await source.call("print", {}, {
      signal: signal(),
      output: spoolSink(dir, 16 * KIB),
    });
    assert.deepEqual(result, { content: [{ type: "text", text: "ok\n" }] });
    assert.deepEqual(await Array.fromAsync(Deno.readDir(dir)), []);
  } finally {
    await source.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a cancelled local tool leaves no spool file", async () => {
  const dir = await spool();
  const source = new LocalToolSource({
    tools: [{
      name: "endless",
      command: [
        deno,
        "eval",
        "const b = new Uint8Array(65536).fill(97); for (;;) await Deno.stdout.write(b);",
      ],
    }],
  });
  const controller = new AbortController();
  try {
    const call = source.call("endless", {}, {
      signal: controller.signal,
      output: spoolSink(dir, 16 * KIB),
    });
    // Wait until the output is being spooled, then cancel.
    for (;;) {
      const entries = await Array.fromAsync(Deno.readDir(dir));
      if (entries.length > 0 && (await Deno.stat(join(dir, entries[0]!.name))).size > 0) break;
      await new Promise((resolve) => queueMicrotask(() => resolve(undefined)));
      await Deno.stat(dir);
    }
    controller.abort(new Error("cancelled by the test"));
    await assert.rejects(() => call, /cancelled by the test/);
  } finally {
    await source.close();
  }
  assert.deepEqual(await Array.fromAsync(Deno.readDir(dir)), []);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("fs_read_file streams a file larger than the window", async () => {
  const dir = await spool();
  const work = await Deno.makeTempDir();
  const text = printed(20_000) + "\uFFFD tail";
  await Deno.writeTextFile(join(work, "big.log"), text);
  const source = new BuiltinToolSource({ cwd: work });
  try {
    const small = await source.call("fs_read_file", { path: "big.log" }, {
      signal: signal(),
      output: spoolSink(dir, 4 * 1024 * 1024),
    });
    assert.equal(small.window, undefined);
    assert.ok(textOf(small) === text);
    const big = await source.call("fs_read_file", { path: "big.log" }, {
      signal: signal(),
      output: spoolSink(dir, 8 * KIB),
    });
    assert.equal(big.window?.bytes, Buffer.byteLength(text));
    assert.ok(big.window?.tail.endsWith("\uFFFD tail"));
    assert.ok((await Deno.readTextFile(big.window!.path)) === text);
    const response = toToolCallResponse("c1", { content: big.content });
    assert.ok(text.startsWith(response.content));
  } finally {
    await source.close();
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(work, { recursive: true });
  }
});

/**
 * One turn through createRuntime and the terminal reporter whose `print`
 * tool runs PRINTER with `args`: the recorded response is the head_tail cut
 * of `expected`, the terminal shows its exact size and lines, the
 * full-result file is all of it, and the spool is empty once released.
 */
async function turnThroughTerminal(args: readonly string[], expected: string, isError: boolean) {
  const workspace = await Deno.makeTempDir({ prefix: "spillway_window_" });
  const io = captureCommandIo();
  const terminal = { ...io, isTerminal: false, columns: 100 };
  const reporter = new TerminalReporter({
    io: terminal,
    styleFor: () => ({ inlineResults: 2, resultsFileLink: "full" }),
    resultsDir: join(workspace, "results", "c"),
  });
  const command = [deno, "eval", PRINTER, ...args];
  const runtime = await createRuntime({
    workspace,
    config: parseConfig(`
[conversation.tools.print]
source = "local"
command = ${JSON.stringify(command)}
truncation = "head_tail"
`),
    observer: reporter,
    noticeSink: reporter,
    provider: ({ cycle }) =>
      Promise.resolve(
        cycle === 0
          ? { text: "", toolCalls: [{ id: "p1", name: "print", arguments: {} }] }
          : { text: "Done.", toolCalls: [] },
      ),
  });
  try {
    const turn = await runtime.query("print a lot");
    assert.equal(turn.status, "finished");
    const message = turn.messages.find((m) => m.role === "tool");
    assert.ok(message?.role === "tool");
    assert.equal(message.isError, isError);
    assert.ok(
      message.content === capText(expected, 256 * KIB, { strategy: "head_tail" }).text,
      "cut differs",
    );
    // The terminal: exact size and line count, and the full-result file is the whole output.
    const size = (Buffer.byteLength(expected) / (1024 * 1024)).toFixed(1);
    const lines = expected.split("\n").length - 1;
    assert.match(
      io.out(),
      new RegExp(
        `print \\(p1\\) ${isError ? "error" : "result"}: ${lines} lines, ${size} MB`,
      ),
    );
    const saved = join(workspace, "results", "c", "p1.txt");
    assert.ok((await Deno.readTextFile(saved)) === expected, "full-result file differs");
    assert.equal((await Deno.stat(saved)).mode! & 0o777, 0o600);
    // Released: nothing left in the spool.
    assert.deepEqual(await Array.fromAsync(Deno.readDir(join(workspace, "spool"))), []);
  } finally {
    await runtime.close();
    await Deno.remove(workspace, { recursive: true });
  }
}

Deno.test("through createRuntime and the terminal: exact cut, full-result file, spool cleared", async () => {
  await turnThroughTerminal(["150000"], printed(150_000), false);
});

Deno.test("through createRuntime and the terminal: a failure's large stderr, cut and saved whole", async () => {
  const expected = "exit code 4\n\nstderr:\n" + printed(150_000) + "\nstdout:\nsummary\n";
  await turnThroughTerminal(["150000", "stderr"], expected, true);
});

Deno.test("the edit prompt opens the whole output of a windowed response", async () => {
  const dir = await spool();
  const whole = printed(50_000);
  const path = join(dir, "output-x.txt");
  await Deno.writeTextFile(path, whole);
  const response = {
    id: "c1",
    content: whole.slice(0, 1000),
    isError: false,
    window: {
      tail: whole.slice(-1000),
      bytes: Buffer.byteLength(whole),
      lines: 50_000,
      path,
      temporary: true,
    },
  };
  const call = { id: "c1", name: "print", arguments: {} };
  const seen = join(dir, "seen.txt");
  try {
    // An editor that records what it was given and leaves it as it is.
    const untouched = new TerminalPrompter({
      io: captureCommandIo(),
      editor: [deno, "eval", `await Deno.copyFile(Deno.args[0], ${JSON.stringify(seen)});`],
    });
    assert.deepEqual(await untouched.edit(call, response, signal()), { kind: "deliver" });
    assert.ok((await Deno.readTextFile(seen)) === whole, "the editor did not get the whole output");
    const editing = new TerminalPrompter({
      io: captureCommandIo(),
      editor: [deno, "eval", `await Deno.writeTextFile(Deno.args[0], "just the verdict");`],
    });
    assert.deepEqual(await editing.edit(call, response, signal()), {
      kind: "edit",
      content: "just the verdict",
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
