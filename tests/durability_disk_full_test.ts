/**
 * A full disk, for real: the workspace's `conversations` folder is a 600 KB
 * tmpfs, and one batch of three 250 KB results does not fit, so the append
 * fails with ENOSPC part way through. Through `spillway query` as a person
 * meets it: the turn fails saying the results were not recorded, and the
 * next `query --conversation ID` goes on without any of the batch (its
 * calls recorded as interrupted, with one warning). When a `size_threshold`
 * cut the results, no notice claims they were sent to the assistant (on a
 * disk with room, the same turn prints one per call).
 *
 * Mounting needs root; elsewhere the test is ignored, and its name says why.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { continueQuery, conversationIdOf, eventsOf, query, workspaceWith } from "./_cli.ts";

/** Each call's result; three do not fit in the tmpfs, two would. */
const RESULT_BYTES = 250_000;

const CONFIG = `
[conversation.tools.fill]
source = "local"
description = "Prints ${RESULT_BYTES} bytes."
command = ["sh", "-c", "yes x | head -c ${RESULT_BYTES}"]
`;

const FIRST = `
[[cycles]]
text = "Three big results."
tool_calls = [
  { id = "call_1", name = "fill", arguments = {} },
  { id = "call_2", name = "fill", arguments = {} },
  { id = "call_3", name = "fill", arguments = {} },
]

[[cycles]]
text = "never reached"
`;

const SECOND = `
[[cycles]]
text = "Going on."
`;

/** Why the test cannot run here, or `undefined` when it can. */
async function cannotMount(): Promise<string | undefined> {
  if (Deno.build.os !== "linux") return "needs Linux to mount a tmpfs";
  if (Deno.uid() !== 0) return "needs root to mount a tmpfs";
  const dir = await Deno.makeTempDir({ prefix: "spillway_probe_" });
  try {
    const mount = await run("mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", dir);
    if (!mount.success) return `mount -t tmpfs failed here: ${mount.stderr.trim()}`;
    await run("umount", dir);
    return undefined;
  } finally {
    await Deno.remove(dir);
  }
}

async function run(...argv: string[]): Promise<{ success: boolean; stderr: string }> {
  const output = await new Deno.Command(argv[0]!, { args: argv.slice(1), stdout: "null" })
    .output();
  return { success: output.success, stderr: new TextDecoder().decode(output.stderr) };
}

const skip = await cannotMount();

Deno.test({
  name:
    "a disk that fills up mid-append: the turn fails, and the next turn sees none of the batch" +
    (skip === undefined ? "" : ` (ignored: ${skip})`),
  ignore: skip !== undefined,
  async fn() {
    const workspace = await workspaceWith(CONFIG, { "first.toml": FIRST, "second.toml": SECOND });
    const conversations = join(workspace, "conversations");
    await Deno.mkdir(conversations);
    const mount = await run(
      "mount",
      "-t",
      "tmpfs",
      "-o",
      "size=600k,mode=0700",
      "tmpfs",
      conversations,
    );
    assert.ok(mount.success, mount.stderr);
    try {
      const first = await query(workspace, ["--quiet", "--script", "first.toml", "fill it up"]);
      const id = conversationIdOf(first);
      const log = `conversations/${id}/events.jsonl`;
      assert.equal(first.code, 1, first.stderr);
      assert.equal(first.stdout, "");
      assert.equal(
        first.stderr,
        `The turn failed: the results of this batch were not recorded: could not append to ` +
          `${join(workspace, log)}: No space left on device (os error 28)\n` +
          `Conversation ${id}: ${log}\n`,
      );
      const afterFirst = await eventsOf(workspace, id);
      assert.deepEqual(afterFirst.map((event) => event.type), [
        "turn_start",
        "chat_request",
        "chat_response",
        "tool_call_request",
        "tool_call_request",
        "tool_call_request",
        "turn_end",
      ]);

      const second = await continueQuery(workspace, "second.toml", id, "go on");
      assert.equal(second.code, 0, second.stderr);
      assert.equal(
        second.stderr,
        `warning: conversation ${id}: its last turn ended with 3 unanswered calls; recorded ` +
          `them as interrupted\n`,
      );
      const events = await eventsOf(workspace, id);
      assert.ok(
        !events.some((event) => String(event.content ?? "").startsWith("x\nx\n")),
        "a result of the failed batch is in the conversation",
      );
      // What the model was sent for the second turn: nowhere near one result's size.
      const requests = events.filter((event) => event.type === "chat_request");
      assert.equal(requests.length, 2);
      assert.ok(Number(requests[1]!.bytes) < 10_000, `sent ${requests[1]!.bytes} bytes`);
    } finally {
      const umount = await run("umount", conversations);
      await Deno.remove(workspace, { recursive: true });
      assert.ok(umount.success, umount.stderr);
    }
  },
});

/** The same tool with a `size_threshold` each of its results is over. */
const CAPPED_CONFIG = `${CONFIG}size_threshold = "200KB"\n`;

const CAPPED = `
[[cycles]]
text = "Three big results, each cut."
tool_calls = [
  { id = "call_1", name = "fill", arguments = {} },
  { id = "call_2", name = "fill", arguments = {} },
  { id = "call_3", name = "fill", arguments = {} },
]

[[cycles]]
text = "Done."
`;

/** The line of a notice, whatever its sizes and cause. */
const NOTICE = /^.*: sent .* to the assistant.*$/m;

Deno.test({
  name: "a cut batch on a full disk: the turn fails and no notice claims anything was sent" +
    (skip === undefined ? "" : ` (ignored: ${skip})`),
  ignore: skip !== undefined,
  async fn() {
    const workspace = await workspaceWith(CAPPED_CONFIG, { "capped.toml": CAPPED });
    const conversations = join(workspace, "conversations");
    await Deno.mkdir(conversations);
    const mount = await run(
      "mount",
      "-t",
      "tmpfs",
      "-o",
      "size=600k,mode=0700",
      "tmpfs",
      conversations,
    );
    assert.ok(mount.success, mount.stderr);
    let mounted = true;
    try {
      const full = await query(workspace, ["--quiet", "--script", "capped.toml", "cut them"]);
      const id = conversationIdOf(full);
      const log = `conversations/${id}/events.jsonl`;
      assert.equal(full.code, 1, full.stderr);
      assert.doesNotMatch(full.stderr, NOTICE);
      assert.equal(
        full.stderr,
        `The turn failed: the results of this batch were not recorded: could not append to ` +
          `${join(workspace, log)}: No space left on device (os error 28)\n` +
          `Conversation ${id}: ${log}\n`,
      );

      // The same turn with room on the disk: every result was cut, and says so.
      const umount = await run("umount", conversations);
      assert.ok(umount.success, umount.stderr);
      mounted = false;
      const roomy = await query(workspace, ["--quiet", "--script", "capped.toml", "cut them"]);
      assert.equal(roomy.code, 0, roomy.stderr);
      const notices = roomy.stderr.split("\n").filter((line) => NOTICE.test(line));
      assert.deepEqual(notices, [
        "fill: sent 200.0 KB of 244.1 KB to the assistant (size_threshold)",
        "fill: sent 200.0 KB of 244.1 KB to the assistant (size_threshold)",
        "fill: sent 200.0 KB of 244.1 KB to the assistant (size_threshold)",
      ]);
    } finally {
      const umount = mounted ? await run("umount", conversations) : { success: true, stderr: "" };
      await Deno.remove(workspace, { recursive: true });
      assert.ok(umount.success, umount.stderr);
    }
  },
});
