/**
 * SIGTERM, SIGHUP and Ctrl-C stop `spillway query` the same way: the
 * running call is cancelled, its local tool's process group killed (nothing
 * left running under PID 1), the cancellation and `turn_end` recorded, and
 * the exit code is 128 + the signal's number.
 *
 * spillway runs as a person runs it (`deno run … src/cli.ts`, signalled
 * directly, not through `deno task`). Its local tool starts a long child
 * (`sleep`) and writes both pids to a file; the test waits for that file (a
 * file-system watch, no sleep), sends the signal, and checks the exit code,
 * the pids, what was printed and what was recorded. A last test closes a
 * real terminal (a tmux session running an interactive bash) under spillway.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { DEFAULT_CANCELLATION_RESPONSE } from "../src/config/builtin_defaults.ts";
import {
  continueQuery,
  conversationIdOf,
  eventsOf,
  finished,
  REPO,
  spawnQuery,
  spillwayArgv,
  workspaceWith,
} from "./_cli.ts";

const CONFIG = `
[conversation.tools.hang]
source = "local"
description = "Starts a long child and waits for it."
command = ["sh", "-c", "sleep 1000 & echo \\"$$ $!\\" > started/pids.tmp && mv started/pids.tmp started/pids; wait"]
`;

const SCRIPT = `
[[cycles]]
text = "Starting something long."
tool_calls = [{ id = "call_1", name = "hang", arguments = {} }]

[[cycles]]
text = "never reached: the turn is stopped first"
`;

const NEXT = `
[[cycles]]
text = "Going on."
`;

const SIGNALS = [
  { signal: "SIGTERM", code: 143, says: "terminated (SIGTERM)" },
  { signal: "SIGHUP", code: 129, says: "hung up (SIGHUP)" },
  { signal: "SIGINT", code: 130, says: "interrupted (Ctrl-C)" },
] as const;

const linuxOnly = Deno.build.os === "linux" ? undefined : "needs Linux (/proc, process groups)";

for (const { signal, code, says } of SIGNALS) {
  Deno.test({
    name: `${signal} stops spillway query like Ctrl-C: call cancelled, process group killed, ` +
      `turn_end recorded, exit ${code}` + (linuxOnly ? ` (ignored: ${linuxOnly})` : ""),
    ignore: linuxOnly !== undefined,
    async fn() {
      const workspace = await workspaceWith(CONFIG, { "script.toml": SCRIPT, "next.toml": NEXT });
      try {
        await Deno.mkdir(join(workspace, "started"));
        const started = watchFor(join(workspace, "started", "pids"));
        const child = spawnQuery(workspace, ["--quiet", "--script", "script.toml", "go"]);
        const pids = numbers(await started.until(child.status));
        child.kill(signal);
        const run = await finished(child);
        const id = conversationIdOf(run);

        assert.equal(run.code, code, run.stderr);
        assert.equal(run.signal, null, "spillway handled the signal instead of dying of it");
        assert.equal(run.stdout, "");
        assert.equal(
          run.stderr,
          `\n${says}: cancelling; running calls get their cancellation response…\n` +
            `The turn failed: the turn was cancelled\n` +
            `Conversation ${id}: conversations/${id}/events.jsonl\n`,
        );
        await assertGone(pids);
        await assertCancellationRecorded(workspace, id);
        // The turn was recorded whole: continuing it needs no repair and says nothing.
        const next = await continueQuery(workspace, "next.toml", id, "on");
        assert.equal(next.code, 0, next.stderr);
        assert.equal(next.stderr, "");
      } finally {
        await Deno.remove(workspace, { recursive: true });
      }
    },
  });
}

const noTmux = linuxOnly ?? await missing("tmux", "-V") ?? await missing("bash", "--version");

Deno.test({
  name: "closing the terminal under spillway query (SIGHUP from the shell) records the " +
    "cancellation and exits 129" + (noTmux ? ` (ignored: ${noTmux})` : ""),
  ignore: noTmux !== undefined,
  async fn() {
    const workspace = await workspaceWith(CONFIG, { "script.toml": SCRIPT });
    // A server of its own: other tmux sessions on this machine are not ours to touch.
    const server = `spillway_hangup_${Deno.pid}`;
    const tmux = (...args: string[]) => run("tmux", "-L", server, ...args);
    const session = "hangup";
    try {
      await Deno.mkdir(join(workspace, "started"));
      const started = watchFor(join(workspace, "started", "pids"));
      const exited = watchFor(join(workspace, "exit_code"));
      // The wrapper survives the hangup and writes spillway's exit code; the
      // terminal's output is not --quiet, so spillway writes to it as it dies.
      const command = [
        Deno.execPath(),
        "run",
        "--quiet",
        "--no-prompt",
        "--allow-read",
        "--allow-write",
        "--allow-run",
        join(REPO, "tests", "fixtures", "signals", "exit_code_of.ts"),
        "exit_code",
        Deno.execPath(),
        ...spillwayArgv(["query", "--workspace", ".", "--script", "script.toml", "go"]),
      ].map(shellQuote).join(" ");
      await tmux(
        "new-session",
        "-d",
        "-s",
        session,
        "-x",
        "100",
        "-y",
        "30",
        "-c",
        workspace,
        [
          "env",
          `XDG_CONFIG_HOME=${join(workspace, "no-user-config")}`,
          "bash",
          "--norc",
          "--noprofile",
          "-i",
        ].map(shellQuote).join(" "),
      );
      await tmux("send-keys", "-t", session, command, "Enter");
      const exitCode = exited.until();
      const pids = numbers(await started.until(exitCode));
      await tmux("kill-session", "-t", session);
      const code = await exitCode;
      const id = (await Array.fromAsync(Deno.readDir(join(workspace, "conversations"))))[0]!.name;

      assert.equal(code, "129");
      await assertGone(pids);
      await assertCancellationRecorded(workspace, id);
    } finally {
      await tmux("kill-server").catch(() => {}); // already gone when the test got this far
      // The server leaves its socket file behind.
      const socket = join(Deno.env.get("TMUX_TMPDIR") ?? "/tmp", `tmux-${Deno.uid()}`, server);
      await Deno.remove(socket).catch(() => {});
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

/**
 * Watches for a file; `until()` resolves with its text once it appears, or
 * rejects when `first` settles before that (the process that should write
 * it exited). Started before that process, so no event is missed.
 */
function watchFor(path: string): { until(first?: Promise<unknown>): Promise<string> } {
  const dir = join(path, "..");
  const watcher = Deno.watchFs(dir);
  const read = async (): Promise<string | undefined> => {
    try {
      return (await Deno.readTextFile(path)).trim();
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    }
  };
  return {
    async until(first) {
      const appeared = (async () => {
        for (let found = await read();; found = await read()) {
          if (found !== undefined) return found;
          const next = await watcher[Symbol.asyncIterator]().next();
          if (next.done) throw new Error(`stopped watching ${dir}`);
        }
      })();
      const instead = first?.then((value): never => {
        throw new Error(`${path} never appeared: ${JSON.stringify(value)} came first`);
      });
      instead?.catch(() => {}); // it may lose the race
      try {
        return await (instead === undefined ? appeared : Promise.race([appeared, instead]));
      } finally {
        watcher.close();
      }
    },
  };
}

/**
 * Asserts that no process of `pids` survived: each is gone, a zombie, or
 * was already sent a fatal signal it has not run since to receive (the
 * kill landed; the scheduler has not caught up). A pid now naming another
 * program was reused, so the tool's process is gone.
 */
async function assertGone(pids: readonly number[]): Promise<void> {
  assert.equal(pids.length, 2, `the tool wrote ${pids}`);
  for (const pid of pids) {
    // ps rather than /proc: the test task does not grant reading /proc.
    const output = await new Deno.Command("ps", {
      args: ["-o", "stat=,comm=,pending=", "-p", String(pid)],
      stderr: "null",
    }).output();
    if (!output.success) continue; // no such process
    const [state = "", name = "", pending = "0"] = new TextDecoder().decode(output.stdout).trim()
      .split(/\s+/);
    if (name !== "sh" && name !== "sleep") continue;
    if (state.startsWith("Z") || state.startsWith("X")) continue;
    const fatal = (1n << 14n) | (1n << 8n); // SIGTERM (15), SIGKILL (9)
    assert.ok(
      (BigInt(`0x${pending}`) & fatal) !== 0n,
      `${name} (pid ${pid}) is still running: state ${state}`,
    );
  }
}

async function assertCancellationRecorded(workspace: string, id: string): Promise<void> {
  const events = await eventsOf(workspace, id);
  assert.deepEqual(events.map((event) => event.type), [
    "turn_start",
    "chat_request",
    "chat_response",
    "tool_call_request",
    "tool_call_response",
    "turn_end",
  ]);
  assert.deepEqual(events[4], {
    type: "tool_call_response",
    id: "call_1",
    content: DEFAULT_CANCELLATION_RESPONSE,
    is_error: true,
  });
  const end = events[5]!;
  assert.deepEqual(end, {
    type: "turn_end",
    turn_id: `${id}/1`,
    status: "failed",
    reason: "the turn was cancelled",
    at: end.at,
  });
}

async function run(program: string, ...args: string[]): Promise<void> {
  const output = await new Deno.Command(program, { args, stdout: "null", stderr: "piped" })
    .output();
  if (!output.success) {
    throw new Error(
      `${program} ${args.join(" ")} failed: ${new TextDecoder().decode(output.stderr)}`,
    );
  }
}

async function missing(program: string, versionFlag: string): Promise<string | undefined> {
  try {
    const output = await new Deno.Command(program, {
      args: [versionFlag],
      stdout: "null",
      stderr: "null",
    }).output();
    return output.success ? undefined : `${program} ${versionFlag} failed`;
  } catch {
    return `needs ${program}, which is not installed`;
  }
}

function numbers(text: string): number[] {
  return text.split(/\s+/).map(Number);
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
