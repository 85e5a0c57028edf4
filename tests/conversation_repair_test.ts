/**
 * The repair story end to end, through the real CLI, file store and
 * scripted provider: a conversation recorded without a size_threshold dies
 * (every request is over the model's context window), `conversation
 * compact` repairs it without a model call, and `query --conversation ID`
 * then continues it: the request now fits. Also: a conversation open in
 * another process is refused by compact and by query, and left untouched.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../src/cli.ts";
import { captureCommandIo } from "../src/commands/command_io.ts";
import { providerView } from "../src/stream/provider_view.ts";
import type { StreamEvent } from "../src/stream/events.ts";
import { holdConversation } from "../src/testing/conversation_holder.ts";

const READ_BIG = `
context_window = "1MB"
[[cycles]]
text = "Reading it."
tool_calls = [{ id = "call_1", name = "fs_read_file", arguments = { path = "big.txt" } }]
[[cycles]]
text = "It is big."
`;
const ANSWER = `
context_window = "1MB"
[[cycles]]
text = "Still here."
`;

interface Run {
  code: number;
  out: string;
  err: string;
}

async function spillway(dir: string, ...args: string[]): Promise<Run> {
  const io = captureCommandIo({ cwd: dir });
  const code = await main(args, io);
  return { code, out: io.out(), err: io.err() };
}

/** `query` continuing conversation `id` with `prompt`, the model answering from answer.toml. */
function continueConversation(dir: string, id: string, prompt: string): Promise<Run> {
  return spillway(dir, "query", "--conversation", id, "--script", "answer.toml", prompt);
}

/** A workspace whose conversation died: a 3 MB response recorded with no size_threshold. */
async function deadConversation(dir: string): Promise<string> {
  await Deno.writeTextFile(join(dir, "read_big.toml"), READ_BIG);
  await Deno.writeTextFile(join(dir, "answer.toml"), ANSWER);
  await Deno.writeTextFile(join(dir, "big.txt"), "log line\n".repeat(350_000));
  const first = await spillway(
    dir,
    "query",
    "--quiet",
    "--cfg",
    "conversation.tools.fs_read_file.size_threshold=unlimited",
    "--script",
    "read_big.toml",
    "read big.txt",
  );
  assert.equal(first.code, 1, first.err);
  assert.match(first.err, /The turn failed: prompt is too long: \d+ bytes > 1048576 maximum/);
  const id = /Conversation (\S+):/.exec(first.err)?.[1];
  assert.ok(id, first.err);
  return id;
}

async function events(dir: string, id: string): Promise<StreamEvent[]> {
  const text = await Deno.readTextFile(join(dir, ".spillway/conversations", id, "events.jsonl"));
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

async function withDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "spillway_repair_" });
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

for (const repair of [["--tools=strip-responses", "--over", "512KB"], ["--tools=cap"]]) {
  Deno.test(`a dead conversation continues after compact ${repair.join(" ")}`, () =>
    withDir(async (dir) => {
      const id = await deadConversation(dir);
      const before = await continueConversation(dir, id, "again");
      assert.equal(before.code, 1, "still dead before the repair");
      assert.match(before.err, /prompt is too long/);

      const compacted = await spillway(dir, "conversation", "compact", ...repair, id);
      assert.equal(compacted.code, 0, compacted.err);
      assert.match(compacted.out, new RegExp(`^${id}: 1 response (stripped|cut)`));

      const after = await continueConversation(dir, id, "again");
      assert.equal(after.code, 0, after.err);
      assert.match(after.out, /assistant: Still here\./);
      const log = await events(dir, id);
      const lastRequest = log.findLast((e) => e.type === "chat_request");
      assert.ok(lastRequest?.type === "chat_request" && lastRequest.bytes <= 1024 * 1024);
      // The model was sent the stub or the cut, and the log still has the payload.
      const sent = providerView(log).find((m) => m.role === "tool");
      assert.ok(sent?.role === "tool");
      if (repair[0] === "--tools=strip-responses") {
        assert.match(sent.content, /^\[response removed by compaction: fs_read_file, 2\.0 MB — /);
      } else {
        assert.ok(
          sent.content.endsWith("\n... [truncated, 3.0 MB → 256.0 KB]"),
          sent.content.slice(-50),
        );
      }
      const recorded = log.find((e) => e.type === "tool_call_response");
      assert.ok(recorded?.type === "tool_call_response" && recorded.content.length > 2_000_000);

      const ls = await spillway(dir, "conversation", "ls");
      assert.match(ls.out, new RegExp(`${id} .* no {2,}`));
    }));
}

Deno.test("a turn over the scripted context window names the repair, which works as printed", () =>
  withDir(async (dir) => {
    const id = await deadConversation(dir);
    const again = await continueConversation(dir, id, "x");
    assert.equal(again.code, 1);
    const hint = again.err.split("\n").slice(-3);
    assert.deepEqual(hint, [
      "Repair without a model call (the log keeps every original byte):",
      `  deno task spillway conversation compact --tools=strip-responses --over 32KB ${id}`,
      "",
    ]);
    const printed = hint[1]!.trim().split(" ").slice("deno task spillway".split(" ").length);
    assert.equal((await spillway(dir, ...printed)).code, 0);
    const after = await continueConversation(dir, id, "x");
    assert.equal(after.code, 0, after.err);
  }));

Deno.test("a conversation open in another process is refused by compact and query, and left untouched", () =>
  withDir(async (dir) => {
    const id = await deadConversation(dir);
    const path = join(dir, ".spillway/conversations", id, "events.jsonl");
    const before = await Deno.readFile(path);
    const child = await holdConversation(join(dir, ".spillway/conversations"), id);
    try {
      const refused = await spillway(dir, "conversation", "compact", "--tools=cap", id);
      assert.equal(refused.code, 1);
      assert.equal(refused.out, "");
      assert.match(
        refused.err,
        new RegExp(
          `^error: conversation ${id} is open in another process \\(pid ${child.pid}, since [^)]+\\): ` +
            "nothing was changed; try again when that process has finished\\n$",
        ),
      );
      const query = await continueConversation(dir, id, "x");
      assert.equal(query.code, 1);
      assert.match(query.err, new RegExp(`conversation ${id} is open in another process`));
      // Reading needs no lock.
      assert.equal((await spillway(dir, "conversation", "show", id)).code, 0);
      const dry = await spillway(dir, "conversation", "compact", "--tools=cap", "--dry-run", id);
      assert.equal(dry.code, 0, dry.err);
    } finally {
      await child.kill();
    }
    assert.deepEqual(await Deno.readFile(path), before);
    const now = await spillway(dir, "conversation", "compact", "--tools=cap", id);
    assert.equal(now.code, 0, now.err);
  }));
