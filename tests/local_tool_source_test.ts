/**
 * Integration tests of the `local` tool source against real processes:
 * arguments on stdin and in the environment, failures as data, timeouts and
 * aborts that kill a whole process group, and output that is large, invalid
 * UTF-8 or full of control bytes.
 */

import assert from "node:assert/strict";
import { SimulatedClock } from "xstate";
import { SpillwayError } from "../src/errors/spillway_error.ts";
import { LocalToolSource, type LocalToolSpec } from "../src/service/local/local_tool_source.ts";
import { ToolLostError, type ToolResult } from "../src/service/tool_source.ts";
import {
  CONTRACT_TIMEOUT_MS,
  defineToolSourceContract,
} from "../src/testing/tool_source_contract.ts";
import { DEFAULT_TOOL_TIMEOUT_MS } from "../src/service/tool_timeout.ts";
import { HOLD_PROBE, isAlive, ProcessProbe } from "./_process_probe.ts";

const never = new AbortController().signal;

/** Prints the `text` argument read from stdin, byte for byte. */
const ECHO_TEXT = "const args = JSON.parse(await new Response(Deno.stdin.readable).text()); " +
  "await Deno.stdout.write(new TextEncoder().encode(args.text));";

defineToolSourceContract("LocalToolSource", async ({ clock }) => {
  const probe = await ProcessProbe.create();
  const holdProbe = (timeoutMs: number) => ({
    command: ["sh", "-c", `${HOLD_PROBE}; exec sleep 600`, "sh", probe.path],
    timeoutMs,
  });
  const source = new LocalToolSource({
    tools: [
      { name: "echo", command: [Deno.execPath(), "eval", ECHO_TEXT] },
      { name: "fail", command: ["sh", "-c", 'echo "failed: $(cat)" >&2; exit 3'] },
      { name: "hang", ...holdProbe(CONTRACT_TIMEOUT_MS) },
      { name: "wait", ...holdProbe(DEFAULT_TOOL_TIMEOUT_MS) },
    ],
    killGraceMs: 300,
    clock,
  });
  return {
    source,
    tools: { echo: "echo", fail: "fail", hang: "hang", wait: "wait" },
    starts: probe.starts,
    stops: probe.stops,
    async cleanup() {
      await source.close();
      await probe[Symbol.asyncDispose]();
    },
  };
}, { noMalformedResult: "a local tool's stdout is a text result, whatever its bytes" });

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
  await using probe = await ProcessProbe.create();
  const clock = new SimulatedClock();
  const source = new LocalToolSource({
    tools: [{
      name: "t",
      command: [
        "sh",
        "-c",
        `${HOLD_PROBE}; echo started; sleep 600 & echo $! >&3; sleep 600 & echo $! >&3; wait`,
        "sh",
        probe.path,
      ],
      timeoutMs: 400,
    }],
    killGraceMs: 300,
    clock,
  });
  try {
    const call = source.call("t", {}, { signal: never });
    // The shell and both sleeps run (and "started" is written): the time is up.
    await probe.lines.reached(3);
    clock.increment(400);
    const result = await call;
    assert.equal(result.isError, true);
    assert.equal(textOf(result), "timed out after 0.4s\n\nstdout:\nstarted\n");
    // The probe's end-of-file: the shell and both sleeps, which hold it too, are gone.
    await probe.stops.reached(1);
    assert.equal(probe.pids.length, 3);
  } finally {
    await source.close();
  }
});

Deno.test("a timeout escalates to SIGKILL when the group ignores SIGTERM", async () => {
  await using probe = await ProcessProbe.create();
  const clock = new SimulatedClock();
  // An ignored signal stays ignored across fork and exec: the sleep ignores SIGTERM too.
  const source = new LocalToolSource({
    tools: [{
      name: "t",
      command: [
        "sh",
        "-c",
        `trap "" TERM; ${HOLD_PROBE}; sleep 600 & echo $! >&3; wait; wait`,
        "sh",
        probe.path,
      ],
      timeoutMs: 300,
    }],
    killGraceMs: 300,
    clock,
  });
  try {
    const call = source.call("t", {}, { signal: never });
    await probe.lines.reached(2);
    clock.increment(300);
    assert.equal(textOf(await call), "timed out after 0.3s");
    await probe.stops.reached(1);
  } finally {
    await source.close();
  }
});

Deno.test("background processes a finished tool left behind are killed with its group", async () => {
  await using probe = await ProcessProbe.create();
  const result = await runTool({
    command: [
      "sh",
      "-c",
      `${HOLD_PROBE}; sleep 600 > /dev/null 2>&1 & echo done`,
      "sh",
      probe.path,
    ],
  });
  assert.equal(textOf(result), "done\n");
  await probe.stops.reached(1);
});

Deno.test("a background process holding stdout does not hold the result", async () => {
  // Were the result to wait for stdout to close, it would be the timeout's, not "done".
  const result = await runTool({
    command: ["sh", "-c", "sleep 600 & echo done"],
    timeoutMs: 30_000,
  });
  assert.equal(textOf(result), "done\n");
});

Deno.test("an abort rejects with the signal's reason before the group is gone, then kills it", async () => {
  await using probe = await ProcessProbe.create();
  const source = new LocalToolSource({
    tools: [{
      name: "t",
      // Ignores SIGTERM: the group dies only at the SIGKILL after the grace.
      command: [
        "sh",
        "-c",
        `trap "" TERM; ${HOLD_PROBE}; sleep 600 & wait; wait`,
        "sh",
        probe.path,
      ],
    }],
    killGraceMs: 500,
  });
  try {
    const controller = new AbortController();
    const reason = new Error("user pressed Ctrl-C");
    const call = source.call("t", {}, { signal: controller.signal });
    await probe.starts.reached(1);
    controller.abort(reason);
    await assert.rejects(call, (error) => error === reason);
    const [shell] = probe.pids;
    assert.ok(
      shell !== undefined && isAlive(shell),
      `the call waited for the group to die (pids ${probe.pids}, stops ${probe.stops.count})`,
    );
    await source.close();
    await probe.stops.reached(1);
  } finally {
    await source.close();
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
  await using probe = await ProcessProbe.create();
  const source = new LocalToolSource({
    tools: [{
      name: "t",
      command: ["sh", "-c", `${HOLD_PROBE}; exec sleep 600`, "sh", probe.path],
    }],
  });
  const lost = assert.rejects(source.call("t", {}, { signal: never }), ToolLostError);
  await probe.starts.reached(1);
  await source.close();
  await probe.stops.reached(1);
  await lost;
  await assert.rejects(
    source.call("t", {}, { signal: never }),
    (e) => e instanceof SpillwayError && e.code === "tool_unavailable",
  );
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
