/**
 * End to end through the command line: `deno run … src/cli.ts query` as a
 * subprocess, with a scripted model, a local tool and an upstream stdio MCP
 * server, in a temporary workspace. What a user sees (exit code, notices,
 * the closing `Conversation …` line) and what the stream records (capped
 * responses with the exact marker) are checked against values computed
 * independently here, with `ByteSize` and the examples' own log generator.
 */

import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { fakeTestLog } from "../examples/fake_test_log.ts";
import { ByteSize } from "../src/size/byte_size.ts";
import { type CliRun, query, REPO, responsesOf, workspaceWith } from "./_cli.ts";

const FIXTURES = join(REPO, "tests", "fixtures", "e2e");
const DEFAULT_THRESHOLD = ByteSize.parse("256KB");
const NOISY_THRESHOLD = ByteSize.parse("64KB");

/** A temporary workspace holding the tools config (with this Deno) and a script. */
async function e2eWorkspace(script: string): Promise<string> {
  const config = await Deno.readTextFile(join(FIXTURES, "tools.config.toml"));
  return workspaceWith(config.replaceAll('"deno"', JSON.stringify(Deno.execPath())), {
    "script.toml": await Deno.readTextFile(join(FIXTURES, script)),
  });
}

/** Runs `spillway query` from the repository root: the config names examples/… relative to it. */
function queryFromRepo(workspace: string, ...args: string[]): Promise<CliRun> {
  return query(workspace, args, { cwd: REPO });
}

/** The closing line: returns the conversation id after checking the path it names. */
function conversationLine(run: CliRun, workspace: string, summary: string): string {
  const match = /Conversation (\S+) \(([^)]*)\): (.+)\n$/.exec(run.stdout);
  assert.ok(match, `no closing Conversation line in:\n${run.stdout.slice(-500)}`);
  const [, id, shown, path] = match;
  assert.equal(shown, summary);
  assert.equal(path, join(workspace, "conversations", id!, "events.jsonl"));
  return id!;
}

const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

/** The notice line of docs/caps.md, built here from ByteSize, not by the code under test. */
function notice(tool: string, cap: ByteSize, originalBytes: number, cause: string): string {
  return `${tool}: sent ${cap.human()} of ${
    ByteSize.fromBytes(originalBytes).human()
  } to the assistant (${cause})`;
}

/** Asserts `content` is the head of `original` cut to `cap` with the exact marker. */
function assertCut(content: string, original: string, cap: ByteSize): void {
  const marker = `\n... [truncated, ${
    ByteSize.fromBytes(utf8Bytes(original)).human()
  } → ${cap.human()}]`;
  assert.ok(content.endsWith(marker), `ends with ${JSON.stringify(content.slice(-60))}`);
  assert.ok(utf8Bytes(content) <= cap.bytes, `${utf8Bytes(content)} > ${cap.bytes} bytes`);
  const head = content.slice(0, -marker.length);
  assert.ok(original.startsWith(head), "the kept text is the head of the original");
  // ASCII cuts lose nothing to character boundaries: the limit is used to the byte.
  assert.equal(utf8Bytes(content), cap.bytes);
}

Deno.test("query caps a local tool's 1 MB and an upstream server's 5 MB, records and reports them", async () => {
  const workspace = await e2eWorkspace("report_5mb.script.toml");
  try {
    const run = await queryFromRepo(
      workspace,
      "--config",
      join(workspace, "config.toml"),
      "--script",
      join(workspace, "script.toml"),
      "Run the tests and fetch the report",
    );
    assert.equal(run.code, 0, run.stderr);
    const testLog = fakeTestLog(1024 * 1024);
    const report = fakeTestLog(5 * 1024 * 1024);
    assert.equal(
      run.stderr,
      notice("noisy_test_run", NOISY_THRESHOLD, utf8Bytes(testLog), "size_threshold") + "\n" +
        notice("big_report", DEFAULT_THRESHOLD, utf8Bytes(report), "size_threshold") + "\n",
    );
    assert.equal(
      run.stderr,
      "noisy_test_run: sent 64.0 KB of 1.0 MB to the assistant (size_threshold)\n" +
        "big_report: sent 256.0 KB of 5.0 MB to the assistant (size_threshold)\n",
    );
    const id = conversationLine(run, workspace, "2 model requests, 2 cut responses");
    // The terminal shows the raw results (calls, assistant text) on stdout.
    assert.match(run.stdout, /^assistant: Running the tests and fetching the report\.\n/);
    assert.match(run.stdout, /\nassistant: Both results were cut\.\n/);
    // The cap is a delivery limit, not a display limit: the whole report is kept for people.
    const kept = /full result in (\S*call_2\.txt)/.exec(run.stdout);
    assert.ok(kept, "the terminal points at the full result");
    assert.equal(await Deno.readTextFile(resolve(REPO, kept[1]!)), report);

    const responses = await responsesOf(workspace, id);
    assert.deepEqual([...responses.keys()], ["call_1", "call_2"]);
    assertCut(responses.get("call_1")!.content, testLog, NOISY_THRESHOLD);
    assertCut(responses.get("call_2")!.content, report, DEFAULT_THRESHOLD);
    assert.equal(responses.get("call_1")!.is_error, false);
    assert.equal(responses.get("call_2")!.is_error, false);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("query --quiet caps a 50 MB upstream result and still prints the notice", async () => {
  const workspace = await e2eWorkspace("report_50mb.script.toml");
  try {
    const run = await queryFromRepo(
      workspace,
      "--config",
      join(workspace, "config.toml"),
      "--script",
      join(workspace, "script.toml"),
      "--quiet",
      "Fetch the big report",
    );
    assert.equal(run.code, 0, run.stderr);
    const report = fakeTestLog(50 * 1024 * 1024);
    const id = conversationLine(run, workspace, "2 model requests, 1 cut response");
    // The notice, and the file that keeps what the assistant did not get.
    const saved = join(workspace, "results", id, "call_1.txt");
    assert.equal(
      run.stderr,
      notice("big_report", DEFAULT_THRESHOLD, utf8Bytes(report), "size_threshold") + "\n" +
        `  full result: ${saved}\n`,
    );
    assert.ok(
      run.stderr.startsWith(
        "big_report: sent 256.0 KB of 50.0 MB to the assistant (size_threshold)\n",
      ),
    );
    assert.equal((await Deno.stat(saved)).size, utf8Bytes(report));
    assert.equal((await Deno.stat(saved)).mode! & 0o777, 0o600);
    // Quiet: the closing line is all stdout holds.
    assert.match(run.stdout, /^Conversation \S+ \([^)]*\): \S+\n$/);
    const responses = await responsesOf(workspace, id);
    assert.deepEqual([...responses.keys()], ["call_1"]);
    assertCut(responses.get("call_1")!.content, report, DEFAULT_THRESHOLD);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("query answers a call to an unknown tool with an unavailable-tool response and finishes", async () => {
  const workspace = await e2eWorkspace("unknown_tool.script.toml");
  try {
    // No --config: the workspace's config.toml is read (the layered default).
    const run = await queryFromRepo(
      workspace,
      "--script",
      join(workspace, "script.toml"),
      "Try it",
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "", "no cut, no notice");
    const id = conversationLine(run, workspace, "2 model requests, 0 cut responses");
    assert.match(run.stdout, /\nassistant: That tool is not available\.\n/);
    const responses = await responsesOf(workspace, id);
    assert.deepEqual([...responses.keys()], ["call_1", "call_2"]);
    const unavailable = responses.get("call_1")!;
    assert.equal(unavailable.is_error, true);
    // The list names every tool (builtin, local, upstream) so the assistant can correct itself.
    const listed = /^tool no_such_tool is not available \(available tools: (.+)\)$/.exec(
      unavailable.content,
    );
    assert.ok(listed, unavailable.content);
    const names = listed[1]!.split(", ");
    for (const name of ["fs_list_files", "fs_read_file", "noisy_test_run", "big_report", "echo"]) {
      assert.ok(names.includes(name), `${name} is listed in ${unavailable.content}`);
    }
    assert.equal(responses.get("call_2")?.is_error, false, "the sibling call still ran");
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("query refuses an invalid config: exit 1, the problem on stderr, nothing recorded", async () => {
  const workspace = await e2eWorkspace("report_5mb.script.toml");
  try {
    const run = await queryFromRepo(
      workspace,
      "--config",
      "tests/fixtures/e2e/invalid.config.toml",
      "--script",
      join(workspace, "script.toml"),
      "Run the tests",
    );
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "");
    assert.equal(
      run.stderr,
      "The configuration is invalid (1 problem):\n" +
        '  tests/fixtures/e2e/invalid.config.toml:5: conversation.tools.noisy_test_run.size_threshold = "512" ' +
        'is below the 1KB minimum: use "unlimited" for no limit, or result = "skip" for no result at all\n',
    );
    const entries = [];
    for await (const entry of Deno.readDir(workspace)) entries.push(entry.name);
    assert.deepEqual(entries.sort(), ["config.toml", "script.toml"], "no conversation started");
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});
