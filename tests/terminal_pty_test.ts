/**
 * `spillway query` on a real pseudo-terminal (tmux), as a person uses it:
 * the running-tool spinner (and its absence in pipes, under --quiet, and its
 * colour under NO_COLOR), `result = "ask"` and `"edit"`, `run = "ask"` and
 * `"edit"` with `$EDITOR` set to a script, and Ctrl-C at a prompt (the call
 * is cancelled and recorded; nothing hangs). Each test reads the screen and
 * the conversation log afterwards.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TmuxSession } from "./_tmux.ts";

const CLI = fileURLToPath(new URL("../src/cli.ts", import.meta.url));
const QUERY = `"$DENO" run --allow-read --allow-write --allow-run --allow-env "$CLI" query`;
const EXIT = /EXIT=(\d+)/;
/** The spinner's colour, as a pattern. */
const CYAN = "\\x1b\\[36m";

/**
 * A tool that, after running 1.5 s (past the spinner's delay), creates the
 * file `waited`, then runs until the test creates the file `go`.
 */
const WAITER = `
[conversation.tools.waiter]
source = "local"
command = ["sh", "-c", "sleep 1.5; : > waited; while [ ! -e go ]; do sleep 0.05; done; echo released"]
`;

/** Waits until `path` exists (a condition, with a safety deadline). */
async function fileAppears(path: string, deadlineMs = 60_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    try {
      await Deno.stat(path);
      return;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    if (Date.now() > deadline) throw new Error(`${path} never appeared`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const CALL_WAITER = `
[[cycles]]
text = "Waiting."
tool_calls = [{ id = "call_1", name = "waiter", arguments = {} }]
[[cycles]]
text = "Done."
`;

const CALL_LIST = `
[[cycles]]
text = "Listing."
tool_calls = [{ id = "call_1", name = "fs_list_files", arguments = { path = "." } }]
[[cycles]]
text = "Done."
`;

/** An editor that replaces the file it is given with a fixed text. */
const EDITOR = `#!/bin/sh\nprintf '%s' "$SPILLWAY_TEST_EDIT" > "$1"\n`;

interface Setup {
  config?: string;
  script: string;
  env?: Record<string, string>;
}

async function inTerminal(
  setup: Setup,
  body: (tmux: TmuxSession, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "spillway_pty_" });
  await Deno.writeTextFile(join(dir, "script.toml"), setup.script);
  await Deno.mkdir(join(dir, ".spillway"));
  await Deno.writeTextFile(join(dir, ".spillway", "config.toml"), setup.config ?? "");
  await Deno.writeTextFile(join(dir, "editor.sh"), EDITOR);
  await Deno.chmod(join(dir, "editor.sh"), 0o755);
  const tmux = await TmuxSession.start(dir, {
    DENO: Deno.execPath(),
    CLI,
    HOME: Deno.env.get("HOME") ?? "/root",
    XDG_CONFIG_HOME: join(dir, "xdg"),
    EDITOR: join(dir, "editor.sh"),
    // CI exports NO_COLOR=1; empty means unset (colour on) unless a test sets it.
    NO_COLOR: "",
    ...setup.env,
  });
  try {
    await body(tmux, dir);
  } finally {
    await tmux.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function responses(dir: string): Promise<{ id: string; content: string }[]> {
  const root = join(dir, ".spillway", "conversations");
  const [id] = [...Deno.readDirSync(root)].map((entry) => entry.name);
  const text = await Deno.readTextFile(join(root, id ?? "", "events.jsonl"));
  return text.trim().split("\n").map((line) => JSON.parse(line)).filter((e) =>
    e.type === "tool_call_response"
  );
}

Deno.test("pty: a tool running over a second shows a spinner on stderr, erased when its result arrives", () =>
  inTerminal({ config: WAITER, script: CALL_WAITER }, async (tmux, dir) => {
    await tmux.type(`${QUERY} --script script.toml wait; echo EXIT=$?`);
    await fileAppears(join(dir, "waited"));
    const spinning = await tmux.waitFor(/waiter running, \d+\.\d s/);
    assert.match(spinning, /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiter running, \d+\.\d s/);
    const coloured = await tmux.screen(true);
    assert.match(coloured, new RegExp(`${CYAN}[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]`));
    await Deno.writeTextFile(join(dir, "go"), "");
    const done = await tmux.waitFor(EXIT);
    assert.equal(EXIT.exec(done)?.[1], "0", done);
    assert.doesNotMatch(done, /running, \d/, "the spinner line is erased");
    assert.match(done, /◂ waiter \(call_1\) result: 1 line, 9 B\n {2}│ released\n/);
  }));

Deno.test("pty: no colour under NO_COLOR; no spinner under --quiet or in a pipe", () =>
  inTerminal({ config: WAITER, script: CALL_WAITER, env: { NO_COLOR: "1" } }, async (tmux, dir) => {
    const runs = [
      { how: "--script script.toml wait", spinner: true },
      { how: "--quiet --script script.toml wait", spinner: false },
      { how: "--script script.toml wait 2>&1 | cat", spinner: false },
    ];
    for (const [n, run] of runs.entries()) {
      await tmux.type(`clear; ${QUERY} ${run.how}; echo EXIT${n}=$?`);
      await fileAppears(join(dir, "waited"));
      if (run.spinner) {
        await tmux.waitFor(/waiter running, \d+\.\d s/);
        assert.ok(!(await tmux.screen(true)).includes("\x1b[36m"), "no colour under NO_COLOR");
      } else {
        // The tool has run 1.5 s: a spinner would have been drawn half a second ago.
        assert.doesNotMatch(await tmux.screen(), /running, \d/, run.how);
      }
      await Deno.writeTextFile(join(dir, "go"), "");
      const done = await tmux.waitFor(new RegExp(`EXIT${n}=(\\d+)`));
      assert.match(done, new RegExp(`EXIT${n}=0`), done);
      assert.doesNotMatch(done, /running, \d/, run.how);
      await Deno.remove(join(dir, "go"));
      await Deno.remove(join(dir, "waited"));
    }
  }));

const ASK = `[conversation.tools.fs_list_files]\nresult = "ask"\n`;
const PROMPT = /fs_list_files \(call_1\) returned \d+ B\. \[d\]eliver, \[e\]dit, \[s\]kip\? $/m;

Deno.test("pty: result = ask delivers, skips, or opens $EDITOR on the raw response", async () => {
  for (
    const [answer, expected] of [
      ["d", /^\.spillway\/\neditor\.sh\nscript\.toml$/],
      ["s", /^The user skipped this tool call's result\.$/],
      ["e", /^edited by the editor script$/],
    ] as const
  ) {
    await inTerminal(
      {
        config: ASK,
        script: CALL_LIST,
        env: { SPILLWAY_TEST_EDIT: "edited by the editor script" },
      },
      async (tmux, dir) => {
        await tmux.type(`${QUERY} --script script.toml go; echo EXIT=$?`);
        await tmux.waitFor(PROMPT);
        await tmux.type("what?");
        await tmux.waitFor(/please answer d, e or s\n/);
        await tmux.type(answer);
        const done = await tmux.waitFor(EXIT);
        assert.equal(EXIT.exec(done)?.[1], "0", done);
        const [response] = await responses(dir);
        assert.match(response?.content ?? "", expected, `answer ${answer}`);
      },
    );
  }
});

Deno.test("pty: result = edit opens $EDITOR on the raw response without asking", () =>
  inTerminal(
    {
      config: `[conversation.tools.fs_list_files]\nresult = "edit"\n`,
      script: CALL_LIST,
      env: { SPILLWAY_TEST_EDIT: "only this" },
    },
    async (tmux, dir) => {
      await tmux.type(`${QUERY} --script script.toml go; echo EXIT=$?`);
      const done = await tmux.waitFor(EXIT);
      assert.equal(EXIT.exec(done)?.[1], "0", done);
      assert.equal((await responses(dir))[0]?.content, "only this");
    },
  ));

Deno.test("pty: run = ask refuses a call on n; run = edit runs it with the arguments from $EDITOR", async () => {
  await inTerminal(
    { config: `[conversation.tools.fs_list_files]\nrun = "ask"\n`, script: CALL_LIST },
    async (tmux, dir) => {
      await tmux.type(`${QUERY} --script script.toml go; echo EXIT=$?`);
      await tmux.waitFor(
        /Run fs_list_files \(call_1\) with \{"path":"\."\}\? \[y\]es, \[e\]dit arguments, \[n\]o\? $/m,
      );
      await tmux.type("maybe");
      await tmux.waitFor(/please answer y, e or n\n/);
      await tmux.type("n");
      const done = await tmux.waitFor(EXIT);
      assert.equal(EXIT.exec(done)?.[1], "0", done);
      assert.equal((await responses(dir))[0]?.content, "The user skipped this tool call.");
    },
  );
  await inTerminal(
    {
      config: `[conversation.tools.fs_list_files]\nrun = "edit"\n`,
      script: CALL_LIST,
      env: { SPILLWAY_TEST_EDIT: '{ "path": ".spillway" }' },
    },
    async (tmux, dir) => {
      await tmux.type(`${QUERY} --script script.toml go; echo EXIT=$?`);
      const done = await tmux.waitFor(EXIT);
      assert.equal(EXIT.exec(done)?.[1], "0", done);
      assert.match(done, /opening the editor/);
      assert.equal((await responses(dir))[0]?.content, "config.toml\nconversations/");
    },
  );
});

Deno.test("pty: Ctrl-C at a prompt cancels the call, records it, and exits 130", () =>
  inTerminal({ config: ASK, script: CALL_LIST }, async (tmux, dir) => {
    await tmux.type(`${QUERY} --script script.toml go; echo EXIT=$?`);
    await tmux.waitFor(PROMPT);
    await tmux.press("C-c");
    const done = await tmux.waitFor(EXIT);
    assert.equal(EXIT.exec(done)?.[1], "130", done); // 128 + SIGINT, as shells expect
    assert.match(done, /interrupted \(Ctrl-C\): cancelling; running calls get their cancellation/);
    assert.match(done, /The turn failed: the turn was cancelled/);
    const [response] = await responses(dir);
    assert.equal(response?.content, "The user cancelled this tool call.");
    const root = join(dir, ".spillway", "conversations");
    const [id] = [...Deno.readDirSync(root)].map((entry) => entry.name);
    const log = await Deno.readTextFile(join(root, id ?? "", "events.jsonl"));
    assert.match(log, /"type":"turn_end"[^\n]*"status":"failed","reason":"the turn was cancelled"/);
  }));
