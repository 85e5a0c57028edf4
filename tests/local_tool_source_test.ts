/**
 * Integration tests of the `local` tool source against real processes:
 * arguments on stdin and in the environment, failures as data, timeouts and
 * aborts that kill a whole process group, and output that is large, invalid
 * UTF-8 or full of control bytes.
 */

import assert from "node:assert/strict";
import { SpillwayError } from "../src/errors/spillway_error.ts";
import { LocalToolSource, type LocalToolSpec } from "../src/service/local/local_tool_source.ts";
import { ToolLostError, type ToolResult } from "../src/service/tool_source.ts";

const never = new AbortController().signal;

/** Runs one call of a one-tool source and closes it. */
async function runTool(
  spec: Omit<LocalToolSpec, "name">,
  args: Record<string, unknown> = {},
): Promise<ToolResult> {
  const source = new LocalToolSource({ tools: [{ name: "t", ...spec }], killGraceMs: 300 });
  try {
    return await source.call("t", args, { signal: never });
  } finally {
    await source.close();
  }
}

function textOf(result: ToolResult): string {
  assert.equal(result.content.length, 1);
  const block = result.content[0];
  assert.equal(block?.type, "text");
  assert.equal(typeof block?.text, "string");
  return block?.text as string;
}

/** Whether a pid names a live (non-zombie) process. */
function isAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Waits until `pid` is gone: a signal is delivered a moment after `kill()` returns. */
async function assertDies(pid: number): Promise<void> {
  for (let waited = 0; isAlive(pid); waited += 10) {
    assert.ok(waited < 2_000, `process ${pid} survived`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function readPids(file: string): Promise<number[]> {
  const text = await Deno.readTextFile(file);
  const pids = text.trim().split(/\s+/).map(Number);
  assert.ok(pids.length > 0 && pids.every((pid) => Number.isInteger(pid) && pid > 0), text);
  return pids;
}

Deno.test("list() advertises every configured tool with a permissive schema", async () => {
  const source = new LocalToolSource({
    tools: [
      { name: "a", command: ["cargo", "test"] },
      { name: "b", description: "Counts words.", command: ["wc", "-w"] },
    ],
  });
  assert.deepEqual(await source.list(), [
    {
      name: "a",
      description: "Runs `cargo test`.",
      inputSchema: { type: "object", additionalProperties: true },
    },
    {
      name: "b",
      description: "Counts words.",
      inputSchema: { type: "object", additionalProperties: true },
    },
  ]);
  await source.close();
});

Deno.test("call() writes the arguments as JSON on stdin", async () => {
  const args = { path: "src; rm -rf / $(echo pwned) `x` 'q' \"dq\"", n: 3, deep: { ok: true } };
  const result = await runTool({ command: ["cat"] }, args);
  assert.equal(result.isError, undefined);
  assert.deepEqual(JSON.parse(textOf(result)), args);
});

Deno.test("call() passes the arguments and tool name in the environment, never on a command line", async () => {
  const args = { query: "$(touch /tmp/spillway-pwned) && echo `id`" };
  const result = await runTool(
    {
      command: [
        "sh",
        "-c",
        'printf "%s\\n%s\\n%s" "$SPILLWAY_TOOL_NAME" "$SPILLWAY_TOOL_ARGUMENTS" "$EXTRA"',
      ],
      env: { EXTRA: "configured" },
    },
    args,
  );
  const [name, json, extra] = textOf(result).split("\n");
  assert.equal(name, "t");
  assert.deepEqual(JSON.parse(json ?? ""), args);
  assert.equal(extra, "configured");
});

Deno.test("call() leaves SPILLWAY_TOOL_ARGUMENTS empty for arguments over 64 KiB; stdin still has them", async () => {
  const args = { blob: "x".repeat(200_000) };
  const result = await runTool(
    { command: ["sh", "-c", 'printf "%s|" "${#SPILLWAY_TOOL_ARGUMENTS}"; cat'] },
    args,
  );
  const text = textOf(result);
  assert.ok(text.startsWith("0|"), text.slice(0, 20));
  assert.deepEqual(JSON.parse(text.slice(2)), args);
});

Deno.test("call() runs in cwd", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const result = await runTool({ command: ["pwd"], cwd: dir });
    assert.equal(textOf(result), `${await Deno.realPath(dir)}\n`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a non-zero exit is an error result carrying the exit code, stderr and stdout", async () => {
  const result = await runTool({
    command: ["sh", "-c", "echo partial; echo 'it broke' >&2; exit 3"],
  });
  assert.equal(result.isError, true);
  assert.equal(textOf(result), "exit code 3\n\nstderr:\nit broke\n\nstdout:\npartial\n");
});

Deno.test("a process killed by a signal is an error result naming the signal", async () => {
  const result = await runTool({ command: ["sh", "-c", "kill -SEGV $$"] });
  assert.equal(result.isError, true);
  assert.equal(textOf(result), "killed by signal SIGSEGV");
});

Deno.test("a missing command is an error result naming the command", async () => {
  const result = await runTool({ command: ["spillway-no-such-command", "--flag"] });
  assert.equal(result.isError, true);
  assert.equal(textOf(result), "command not found: `spillway-no-such-command`");
});

Deno.test("a missing working directory is an error result naming it", async () => {
  const result = await runTool({ command: ["pwd"], cwd: "/spillway/no/such/dir" });
  assert.equal(result.isError, true);
  assert.equal(
    textOf(result),
    "cannot run `pwd`: working directory `/spillway/no/such/dir` does not exist",
  );
});

Deno.test("a timeout kills the whole process group, grandchildren included", async () => {
  const pidFile = await Deno.makeTempFile();
  try {
    const started = performance.now();
    const result = await runTool({
      command: [
        "sh",
        "-c",
        'sleep 30 & echo $! > "$1"; sleep 30 & echo $! >> "$1"; echo started; wait',
        "sh",
        pidFile,
      ],
      timeoutMs: 400,
    });
    assert.ok(performance.now() - started < 5_000);
    assert.equal(result.isError, true);
    assert.equal(textOf(result), "timed out after 0.4s\n\nstdout:\nstarted\n");
    const pids = await readPids(pidFile);
    assert.equal(pids.length, 2);
    for (const pid of pids) await assertDies(pid);
  } finally {
    await Deno.remove(pidFile);
  }
});

Deno.test("a timeout escalates to SIGKILL when the group ignores SIGTERM", async () => {
  const pidFile = await Deno.makeTempFile();
  try {
    // An ignored signal stays ignored across fork and exec: the sleep ignores SIGTERM too.
    const result = await runTool({
      command: ["sh", "-c", 'trap "" TERM; sleep 30 & echo $! > "$1"; wait; wait', "sh", pidFile],
      timeoutMs: 300,
    });
    assert.equal(textOf(result), "timed out after 0.3s");
    for (const pid of await readPids(pidFile)) await assertDies(pid);
  } finally {
    await Deno.remove(pidFile);
  }
});

Deno.test("background processes a finished tool left behind are killed with its group", async () => {
  const pidFile = await Deno.makeTempFile();
  try {
    const result = await runTool({
      command: ["sh", "-c", 'sleep 30 > /dev/null 2>&1 & echo $! > "$1"; echo done', "sh", pidFile],
    });
    assert.equal(textOf(result), "done\n");
    for (const pid of await readPids(pidFile)) await assertDies(pid);
  } finally {
    await Deno.remove(pidFile);
  }
});

Deno.test("a background process holding stdout does not hold the result", async () => {
  const started = performance.now();
  const result = await runTool({
    command: ["sh", "-c", "sleep 30 & echo done"],
    timeoutMs: 10_000,
  });
  assert.equal(textOf(result), "done\n");
  assert.ok(performance.now() - started < 5_000);
});

Deno.test("an abort rejects promptly with the signal's reason and kills the group", async () => {
  const pidFile = await Deno.makeTempFile();
  const source = new LocalToolSource({
    tools: [{ name: "t", command: ["sh", "-c", 'sleep 30 & echo $! > "$1"; wait', "sh", pidFile] }],
  });
  try {
    const controller = new AbortController();
    const reason = new Error("user pressed Ctrl-C");
    const call = source.call("t", {}, { signal: controller.signal });
    // Wait until the grandchild exists so the kill has something to find.
    while ((await Deno.readTextFile(pidFile)).trim() === "") {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const aborted = performance.now();
    controller.abort(reason);
    await assert.rejects(call, (error) => error === reason);
    assert.ok(
      performance.now() - aborted < 2_000,
      "the call waited for the process instead of rejecting",
    );
    await source.close();
    for (const pid of await readPids(pidFile)) await assertDies(pid);
  } finally {
    await source.close();
    await Deno.remove(pidFile);
  }
});

Deno.test("an already aborted signal rejects without spawning", async () => {
  const source = new LocalToolSource({
    tools: [{ name: "t", command: ["spillway-no-such-command"] }],
  });
  const controller = new AbortController();
  controller.abort("stop");
  await assert.rejects(source.call("t", {}, { signal: controller.signal }), (e) => e === "stop");
  await source.close();
});

Deno.test("close() during a call rejects it with ToolLostError and refuses later calls", async () => {
  const source = new LocalToolSource({ tools: [{ name: "t", command: ["sleep", "30"] }] });
  const lost = assert.rejects(source.call("t", {}, { signal: never }), ToolLostError);
  await new Promise((resolve) => setTimeout(resolve, 50));
  await source.close();
  await lost;
  await assert.rejects(
    source.call("t", {}, { signal: never }),
    (e) => e instanceof SpillwayError && e.code === "tool_unavailable",
  );
});

Deno.test("an unknown tool is a tool_unavailable fault", async () => {
  const source = new LocalToolSource({ tools: [] });
  await assert.rejects(
    source.call("nope", {}, { signal: never }),
    (e) => e instanceof SpillwayError && e.code === "tool_unavailable" && /`nope`/.test(e.message),
  );
  await source.close();
});

Deno.test("50 MB of stdout arrives whole", async () => {
  const size = 50 * 1024 * 1024;
  const result = await runTool({ command: ["sh", "-c", `yes 0123456789abcdef | head -c ${size}`] });
  const text = textOf(result);
  assert.equal(text.length, size);
  assert.ok(text.startsWith("0123456789abcdef\n0123456789abcdef\n"));
  const line = "0123456789abcdef\n";
  assert.ok(text.endsWith(line + line.slice(0, size % line.length)));
});

Deno.test("a tool that writes 20 MB before reading 1 MB of arguments does not deadlock", async () => {
  const args = { blob: "y".repeat(1024 * 1024) };
  const result = await runTool(
    { command: ["sh", "-c", "head -c 20000000 /dev/zero; wc -c"] },
    args,
  );
  const text = textOf(result);
  assert.equal(text.length, 20_000_000 + `${JSON.stringify(args).length}\n`.length);
  assert.ok(text.endsWith(`\0${JSON.stringify(args).length}\n`));
});

Deno.test("a tool that exits without reading its arguments is fine", async () => {
  const result = await runTool({ command: ["true"] }, { blob: "z".repeat(2_000_000) });
  assert.deepEqual(result, { content: [{ type: "text", text: "" }] });
});

Deno.test("invalid UTF-8 in stdout becomes U+FFFD, never a crash", async () => {
  const result = await runTool({ command: ["printf", "\\377\\376 ok \\303"] });
  assert.equal(textOf(result), "\uFFFD\uFFFD ok \uFFFD");
});

Deno.test("NUL bytes, a BOM and terminal escape sequences pass through untouched", async () => {
  const result = await runTool({
    command: [
      "printf",
      "\\357\\273\\277a\\000b\\033[31mred\\033[0m\\033]8;;file:///x\\007link\\r\\n",
    ],
  });
  assert.equal(textOf(result), "\uFEFFa\0b\x1b[31mred\x1b[0m\x1b]8;;file:///x\x07link\r\n");
});

Deno.test("the constructor rejects bad tool specs", () => {
  assert.throws(() => new LocalToolSource({ tools: [{ name: "t", command: [] }] }), TypeError);
  assert.throws(() => new LocalToolSource({ tools: [{ name: "", command: ["ls"] }] }), TypeError);
  assert.throws(
    () =>
      new LocalToolSource({
        tools: [{ name: "t", command: ["ls"] }, { name: "t", command: ["ls"] }],
      }),
    /defined twice/,
  );
  assert.throws(
    () => new LocalToolSource({ tools: [{ name: "t", command: ["ls"], timeoutMs: 0 }] }),
    RangeError,
  );
  assert.throws(
    () => new LocalToolSource({ tools: [{ name: "t", command: ["ls"], timeoutMs: 1.5 }] }),
    RangeError,
  );
});
