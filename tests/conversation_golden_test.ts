/**
 * Golden tests for the `conversation` commands: a workspace with a healthy
 * conversation and a dead one (a 2.9 MB response recorded before the caps,
 * every later request too long), then the commands a person would run to
 * find and repair it. Each command line's exit code, stdout and stderr are
 * compared with `tests/fixtures/conversation/<scenario>.expected.txt`.
 *
 * Regenerate after an intended change with
 * `UPDATE_GOLDEN=1 deno test -A tests/conversation_golden_test.ts`, then review the diff.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../src/cli.ts";
import { captureCommandIo } from "../src/commands/command_io.ts";
import { capText } from "../src/size/cap_text.ts";
import type { StreamEvent } from "../src/stream/events.ts";

const FIXTURES = fileURLToPath(new URL("./fixtures/conversation/", import.meta.url));
const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";

export const HEALTHY = "20261130-090000-aaaaaa";
export const DEAD = "20261130-100000-bbbbbb";

const DAY_MS = 24 * 60 * 60 * 1000;
/** The clock of the golden sessions: compaction times are part of the output. */
const NOW = new Date("2026-11-30T12:00:00.000Z");

/** The dead conversation: recorded with no size_threshold, so every later request is too long. */
export function deadConversation(): StreamEvent[] {
  const at = (time: string) => `2026-11-30T${time}.000Z`;
  const log = "build step ok\n".repeat(220_000); // 3,080,000 bytes
  const small = capText("s".repeat(300_000), 262_144).text;
  const tooLong = "prompt is too long: 3460410 bytes > 1048576 maximum";
  return [
    {
      type: "turn_start",
      turn_id: `${DEAD}/1`,
      prompt: "why did the build fail?",
      at: at("10:00:00"),
    },
    { type: "chat_request", turn_id: `${DEAD}/1`, cycle: 0, bytes: 412, at: at("10:00:00") },
    {
      type: "chat_response",
      turn_id: `${DEAD}/1`,
      cycle: 0,
      text: "Reading the log.",
      at: at("10:00:01"),
    },
    {
      type: "tool_call_request",
      id: "call_1",
      name: "fs_read_file",
      arguments: { path: "build.log" },
    },
    { type: "tool_call_request", id: "call_2", name: "fs_read_file", arguments: { path: "s.txt" } },
    { type: "tool_call_request", id: "call_3", name: "lint", arguments: {} },
    { type: "tool_call_response", id: "call_1", content: log, is_error: false },
    {
      // Cut when recorded, with the structured content delivered with it (the cut value's).
      type: "tool_call_response",
      id: "call_2",
      content: small,
      is_error: false,
      structured_content: {
        bytes: 262_100,
        digest: "sha256:5f1c0a9e3b7d24e68a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f",
      },
    },
    {
      type: "tool_call_response",
      id: "call_3",
      content: "tool lint is not available",
      is_error: true,
    },
    { type: "chat_request", turn_id: `${DEAD}/1`, cycle: 1, bytes: 3_342_606, at: at("10:00:02") },
    {
      type: "turn_end",
      turn_id: `${DEAD}/1`,
      status: "failed",
      reason: tooLong,
      at: at("10:00:02"),
    },
    { type: "turn_start", turn_id: `${DEAD}/2`, prompt: "try again\nplease", at: at("10:05:00") },
    { type: "chat_request", turn_id: `${DEAD}/2`, cycle: 0, bytes: 3_342_640, at: at("10:05:00") },
    {
      type: "turn_end",
      turn_id: `${DEAD}/2`,
      status: "failed",
      reason: tooLong,
      at: at("10:05:00"),
    },
  ];
}

function healthyConversation(): StreamEvent[] {
  const at = (time: string) => `2026-11-30T${time}.000Z`;
  return [
    { type: "turn_start", turn_id: `${HEALTHY}/1`, prompt: "list the files", at: at("09:00:00") },
    { type: "chat_request", turn_id: `${HEALTHY}/1`, cycle: 0, bytes: 420, at: at("09:00:00") },
    {
      type: "chat_response",
      turn_id: `${HEALTHY}/1`,
      cycle: 0,
      text: "Let me look.",
      at: at("09:00:01"),
    },
    { type: "tool_call_request", id: "call_1", name: "fs_list_files", arguments: { path: "." } },
    { type: "tool_call_response", id: "call_1", content: "a.txt\nb.txt\n", is_error: false },
    { type: "chat_request", turn_id: `${HEALTHY}/1`, cycle: 1, bytes: 520, at: at("09:00:02") },
    {
      type: "chat_response",
      turn_id: `${HEALTHY}/1`,
      cycle: 1,
      text: "Two files.",
      at: at("09:00:03"),
    },
    { type: "turn_end", turn_id: `${HEALTHY}/1`, status: "finished", at: at("09:00:03") },
  ];
}

/** A workspace at `<dir>/.spillway` with both conversations and the dead one's full-result files. */
export async function writeWorkspace(dir: string, now = Date.now()): Promise<string> {
  const workspace = join(dir, ".spillway");
  const conversations: [string, StreamEvent[]][] = [
    [HEALTHY, healthyConversation()],
    [DEAD, deadConversation()],
  ];
  for (const [i, [id, events]] of conversations.entries()) {
    const folder = join(workspace, "conversations", id);
    await Deno.mkdir(folder, { recursive: true });
    const log = join(folder, "events.jsonl");
    await Deno.writeTextFile(log, events.map((e) => JSON.stringify(e) + "\n").join(""));
    // list() orders by the log's mtime: the healthy one is older.
    await Deno.utime(log, new Date(now - (2 - i) * DAY_MS), new Date(now - (2 - i) * DAY_MS));
  }
  const results = join(workspace, "results", DEAD);
  await Deno.mkdir(results, { recursive: true });
  await Deno.writeTextFile(join(results, "call_1.txt"), "build step ok\n".repeat(220_000));
  await Deno.writeTextFile(join(results, "call_2.txt"), "s".repeat(300_000));
  const old = new Date(now - 40 * DAY_MS);
  await Deno.utime(join(results, "call_1.txt"), old, old);
  return workspace;
}

/** Runs each command line in `dir` and renders what a person saw. */
async function session(dir: string, lines: readonly string[][]): Promise<string> {
  let text = "";
  for (const args of lines) {
    const io = captureCommandIo({ env: {}, cwd: dir, now: () => NOW });
    const code = await main(args, io);
    text += `$ spillway ${args.join(" ")}\nexit code: ${code}\n`;
    if (io.out() !== "") text += `--- stdout\n${io.out()}`;
    if (io.err() !== "") text += `--- stderr\n${io.err()}`;
    text += "\n";
  }
  return text.replaceAll(dir, "<tmp>");
}

async function golden(name: string, lines: readonly string[][]): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "spillway_conversation_" });
  try {
    await writeWorkspace(dir, NOW.getTime());
    const actual = await session(dir, lines);
    const path = `${FIXTURES}${name}.expected.txt`;
    if (UPDATE) {
      await Deno.mkdir(FIXTURES, { recursive: true });
      await Deno.writeTextFile(path, actual);
    }
    assert.equal(actual, await Deno.readTextFile(path));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("conversation ls and show match tests/fixtures/conversation/browse.expected.txt", async () => {
  await golden("browse", [
    ["conversation", "ls"],
    ["conversation", "ls", "--json"],
    ["conversation", "show", DEAD],
    ["conversation", "show", HEALTHY, "--json"],
    ["conversation", "show", "20261130-000000-ffffff"],
    ["conversation", "ls", "--workspace", "elsewhere"],
  ]);
});

Deno.test("conversation compact --tools=strip-responses and gc match repair_strip.expected.txt", async () => {
  await golden("repair_strip", [
    ["conversation", "compact", "--tools=strip-responses", "--over", "1MB", DEAD, "--dry-run"],
    ["conversation", "compact", "--tools=strip-responses", "--over", "1MB", DEAD],
    ["conversation", "compact", "--tools=strip-responses", "--over", "1MB", DEAD],
    ["conversation", "ls"],
    ["conversation", "show", DEAD],
    ["conversation", "gc", "--older-than", "30", "--dry-run"],
    ["conversation", "gc", "--older-than", "30"],
    ["conversation", "gc", "--older-than", "30"],
    ["conversation", "ls"],
  ]);
});

Deno.test("conversation compact --tools=cap matches repair_cap.expected.txt", async () => {
  await golden("repair_cap", [
    ["conversation", "compact", "--tools=cap", "--all", "--dry-run"],
    ["conversation", "compact", "--tools=cap", "--all"],
    ["conversation", "compact", "--tools=cap", "--all"],
    // The largest response as the model is now sent it, and its size in the log.
    ["conversation", "ls"],
    ["conversation", "show", DEAD],
    // A lower threshold later: the cut responses are cut again, one marker each.
    [
      "conversation",
      "compact",
      "--tools",
      "cap",
      "--cfg",
      "conversation.tools.fs_read_file.size_threshold=64KB",
      DEAD,
    ],
    ["conversation", "show", DEAD, "--json"],
    ["conversation", "ls", "--json"],
  ]);
});

Deno.test("conversation ls lists by when each conversation started, not by when its log last changed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway_conversation_" });
  try {
    await writeWorkspace(dir, NOW.getTime());
    // The older conversation's log changes last (a compaction, a new turn).
    const log = join(dir, ".spillway", "conversations", HEALTHY, "events.jsonl");
    const later = new Date(NOW.getTime() + DAY_MS);
    await Deno.utime(log, later, later);
    const io = captureCommandIo({ env: {}, cwd: dir, now: () => NOW });
    assert.equal(await main(["conversation", "ls"], io), 0);
    const ids = io.out().split("\n").slice(1, 3).map((row) => row.trim().split(/\s+/)[0]);
    assert.deepEqual(ids, [HEALTHY, DEAD]);
    const json = captureCommandIo({ env: {}, cwd: dir, now: () => NOW });
    assert.equal(await main(["conversation", "ls", "--json"], json), 0);
    const listed = JSON.parse(json.out()).conversations.map((c: { id: string }) => c.id);
    assert.deepEqual(listed, [HEALTHY, DEAD]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("conversation compact and gc refuse bad command lines (golden)", async () => {
  await golden("compact_errors", [
    ["conversation", "compact", DEAD],
    ["conversation", "compact", "--tools=strip-responses", DEAD],
    ["conversation", "compact", "--tools=strip-responses", "--over", "100", DEAD],
    ["conversation", "compact", "--tools=strip-responses", "--over", "1TB", DEAD],
    ["conversation", "compact", "--tools=cap", "--over", "1MB", DEAD],
    ["conversation", "compact", "--tools=cap"],
    ["conversation", "compact", "--tools=cap", "--all", DEAD],
    ["conversation", "compact", "--tools=everything", DEAD],
    ["conversation", "compact", "--tools=cap", "20261130-000000-ffffff", HEALTHY],
    ["conversation", "gc"],
    ["conversation", "gc", "--older-than", "a week"],
    ["conversation"],
  ]);
});
