/**
 * Every sink that prints outside text makes it safe for the terminal: the
 * reporter's call and result lines and notices, the prompter's questions,
 * the command line's error lines, `config check`'s tables and problems, and
 * the runtime's default notice and warning lines. Each test feeds a value
 * that carries an OSC title change, a CSI sequence, a C1 control, a newline
 * and U+202E, and compares the exact text printed.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../src/cli.ts";
import type { Command } from "../src/commands/command.ts";
import { captureCommandIo } from "../src/commands/command_io.ts";
import { parseConfig } from "../src/config/parse_config.ts";
import { SpillwayError } from "../src/errors/spillway_error.ts";
import { TerminalPrompter } from "../src/terminal/terminal_prompter.ts";
import { TerminalReporter } from "../src/terminal/terminal_reporter.ts";
import { formatNotice } from "../src/review/notice.ts";
import { createRuntime } from "../src/runtime/create_runtime.ts";

/** A value from outside: a title change, a screen clear, a C1 CSI, a newline, a bidi override. */
const HOSTILE = "x\x1b]0;pwned\x07\x1b[2J\x9b1m\nfake\u202Etxt.exe";
/** How every single-line sink shows it. */
const SHOWN = "x␛]0;pwned\\x07␛[2J\\x9b1m\\x0afake\\u202etxt.exe";

/** Whether `text` still holds anything a terminal would act on (newlines aside). */
function assertInert(text: string): void {
  // deno-lint-ignore no-control-regex
  const raw = new RegExp(
    "[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]",
  );
  assert.doesNotMatch(text, raw, `raw control in ${JSON.stringify(text)}`);
}

async function withDir(fn: (dir: string) => Promise<void> | void): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "spillway_escapes_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("the reporter's call line, result line and notice show outside names inert", async () => {
  await withDir((dir) => {
    const io = { ...captureCommandIo({ cwd: dir }), isTerminal: true };
    const reporter = new TerminalReporter({
      io,
      cwd: dir,
      resultsDir: join(dir, "results"),
      styleFor: () => ({ inlineResults: 1, resultsFileLink: "osc8" }),
    });
    const call = { id: HOSTILE, name: HOSTILE, arguments: { path: "\u202E." } };
    reporter.assistant({ text: `I will call ${HOSTILE}`, toolCalls: [] });
    reporter.toolCallStarted(call);
    reporter.toolCallResult(call, { id: HOSTILE, content: "a\nb\n", isError: false });
    reporter.notice({
      tool: HOSTILE,
      callId: HOSTILE,
      originalBytes: 2048,
      capBytes: 1024,
      cause: "size_threshold",
    });
    const file = join(dir, "results", "x__0_pwned___2J_1m_fake_txt.exe.txt");
    const link =
      `\x1b]8;;file://${encodeURI(file)}\x1b\\results/x__0_pwned___2J_1m_fake_txt.exe.txt` +
      `\x1b]8;;\x1b\\`;
    assert.equal(
      io.out(),
      "assistant: I will call x␛]0;pwned\\x07␛[2J\\x9b1m\nfake\\u202etxt.exe\n" +
        `▸ ${SHOWN} {"path":"\\u202e."}  (${SHOWN})\n` +
        `◂ ${SHOWN} (${SHOWN}) result: 2 lines, 4 B\n` +
        "  │ a\n" +
        `  … 1 more line: full result in ${link}\n`,
    );
    assert.equal(io.err(), `${SHOWN}: sent 1.0 KB of 2.0 KB to the assistant (size_threshold)\n`);
    assertInert(io.out().replace(link, ""));
    assertInert(io.err());
  });
});

Deno.test("the notice stays byte for byte the formatted line for ordinary names", () => {
  const io = captureCommandIo();
  const reporter = new TerminalReporter({
    io,
    resultsDir: "unused",
    styleFor: () => ({ inlineResults: 10, resultsFileLink: "off" }),
  });
  for (const tool of ["fs_list_files", "cargo-test.v2", "outil_über_日本"]) {
    const fact = {
      tool,
      callId: "c1",
      originalBytes: 3250586,
      capBytes: 262144,
      cause: "batch ceiling",
    } as const;
    reporter.notice(fact);
    assert.ok(io.err().endsWith(`${formatNotice(fact)}\n`));
  }
  assert.equal(
    io.err().split("\n")[0],
    "fs_list_files: sent 256.0 KB of 3.1 MB to the assistant (batch ceiling)",
  );
});

Deno.test("the prompter's questions show outside names and arguments inert", async () => {
  const io = captureCommandIo();
  const prompter = new TerminalPrompter({ io, readLine: () => Promise.resolve("n") });
  const call = { id: HOSTILE, name: HOSTILE, arguments: { x: "\u2066" } };
  const signal = new AbortController().signal;
  assert.deepEqual(await prompter.approveRun(call, "ask", signal), { kind: "skip" });
  assert.equal(
    io.err(),
    `Run ${SHOWN} (${SHOWN}) with {"x":"\\u2066"}? [y]es, [e]dit arguments, [n]o? `,
  );
});

Deno.test("the command line's error lines show outside text inert", async () => {
  const failing = (error: Error): Command => ({
    name: "boom",
    summary: "fails",
    usage: "spillway boom",
    description: "",
    flags: [],
    run: () => Promise.reject(error),
  });
  const failed = captureCommandIo();
  const spillway = new SpillwayError("tool_unavailable", `tool ${HOSTILE} is wrong`);
  assert.equal(await main(["boom"], failed, [failing(spillway)]), 1);
  assert.equal(
    failed.err(),
    "spillway boom: tool x␛]0;pwned\\x07␛[2J\\x9b1m\nfake\\u202etxt.exe is wrong\n",
  );
  // A config problem found once the tools started reads like one found at load: one line each.
  const invalid = captureCommandIo();
  const problem = new SpillwayError("config_invalid", `tool ${HOSTILE} is wrong`);
  assert.equal(await main(["boom"], invalid, [failing(problem)]), 1);
  assert.equal(
    invalid.err(),
    "The configuration is invalid (1 problem):\n" +
      "  tool x␛]0;pwned\\x07␛[2J\\x9b1m\\x0afake\\u202etxt.exe is wrong\n",
  );
  const internal = captureCommandIo();
  assert.equal(await main(["boom"], internal, [failing(new TypeError(HOSTILE))]), 1);
  assert.match(
    internal.err(),
    /^spillway boom: internal error \(please report it\):\nTypeError: x␛/,
  );
  assertInert(internal.err());
  const unknown = captureCommandIo();
  assert.equal(await main([HOSTILE], unknown, [failing(spillway)]), 2);
  assert.match(unknown.err(), /^spillway: unknown command "x␛\]0;pwned\\x07/);
  assertInert(unknown.err());
});

Deno.test("config check shows hostile tool names, commands and values inert", async () => {
  await withDir(async (dir) => {
    // TOML escapes put the raw controls into a key, a command and a description.
    const name = "x\\u001b]0;pwned\\u0007\\u202Etxt";
    await Deno.writeTextFile(
      join(dir, "hostile.toml"),
      `[conversation.tools."${name}"]\nsource = "local"\ncommand = ["${name}"]\n` +
        `description = "\\u009b2J"\n`,
    );
    const io = captureCommandIo({ env: {}, cwd: dir });
    assert.equal(await main(["config", "check", "--config", "hostile.toml"], io), 0);
    const shown = "x␛]0;pwned\\x07\\u202etxt";
    assert.match(io.out(), new RegExp(`^  ${escape(shown)} +source +local +hostile\\.toml$`, "m"));
    // Commands are shown JSON-quoted, which already escapes C0 controls.
    assert.match(io.out(), /^ +command +"x\\u001b\]0;pwned\\u0007\\u202etxt" +hostile\.toml$/m);
    assert.match(io.out(), /^ +description +"\\x9b2J" +hostile\.toml$/m);
    assertInert(io.out());
    assertInert(io.err());

    await Deno.writeTextFile(
      join(dir, "bad.toml"),
      `[conversation.tools.t]\nrun = "\\u202Eksa"\nsize_threshold = "1\\u009bMB"\n`,
    );
    const bad = captureCommandIo({ env: {}, cwd: dir });
    assert.equal(await main(["config", "check", "--config", "bad.toml"], bad), 1);
    assert.match(bad.err(), /run = "\\u202eksa" is not valid/);
    assertInert(bad.err());
  });
});

Deno.test("the runtime's default warning and notice lines show outside names inert", async () => {
  const printed: string[] = [];
  const original = console.error;
  console.error = (...data: unknown[]) => printed.push(data.join(" "));
  const workspace = await Deno.makeTempDir({ prefix: "spillway_escapes_" });
  try {
    let requests = 0;
    const runtime = await createRuntime({
      workspace,
      config: parseConfig(
        `[conversation.tools.'*']\nsize_threshold = "1KB"\n` +
          // An entry no source provides, its name hostile: the start-up warning shows it inert.
          `[conversation.tools."fs_lst_files\\u001b[2J\\u202e"]\nrun = "ask"\n`,
        "hostile.toml",
      ),
      tools: [{
        name: HOSTILE,
        description: "returns 2 KB",
        inputSchema: { type: "object" },
        run: () => Promise.resolve("y".repeat(2048)),
      }],
      provider: () =>
        Promise.resolve(
          requests++ === 0
            ? { text: "", toolCalls: [{ id: HOSTILE, name: HOSTILE, arguments: {} }] }
            : { text: "done", toolCalls: [] },
        ),
    });
    try {
      const turn = await runtime.query("go");
      assert.equal(turn.status, "finished");
    } finally {
      await runtime.close();
    }
    assert.deepEqual(printed, [
      'warning: conversation.tools."fs_lst_files\\u001b[2J\\u202e" (hostile.toml:4): no source ' +
      "provides a tool named fs_lst_files␛[2J\\u202e, so these settings are never used",
      `${SHOWN}: sent 1.0 KB of 2.0 KB to the assistant (size_threshold)`,
    ]);
  } finally {
    console.error = original;
    await Deno.remove(workspace, { recursive: true });
  }
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

Deno.test("conversation commands echo an unknown id inert", async () => {
  await withDir(async (dir) => {
    const id = "x\u202e\x9b2J";
    const compact = ["conversation", "compact", "--tools=strip-responses", "--over", "1KB", id];
    for (const command of [["conversation", "show", id], compact]) {
      const io = captureCommandIo({ env: {}, cwd: dir });
      assert.equal(await main(command, io), 1);
      assert.match(io.err(), /no conversation "x\\u202e\\x9b2J" in /);
      assertInert(io.err());
    }
  });
});
