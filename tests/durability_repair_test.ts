/**
 * Crash repair on open, through `spillway query --conversation` as a person
 * meets it: a conversation whose last turn was cut short (written here by
 * hand, as a crash leaves it: a call without its response, no `turn_end`)
 * is repaired when it is continued. One warning names the conversation and
 * the calls; the unanswered call gets a recorded "interrupted" response and
 * the turn its `turn_end`; the new turn goes on from there; the next
 * `--conversation` finds nothing to repair and says nothing.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  INTERRUPTED_RESPONSE,
  INTERRUPTED_TURN_REASON,
} from "../src/stream/repair_interrupted_turn.ts";
import { continueQuery, eventsOf, workspaceWith } from "./_cli.ts";

const ID = "20261130-120000-abcdef";

/** The log a kill left: the model asked for two calls, one result was recorded. */
const CUT_SHORT = [
  { type: "turn_start", turn_id: `${ID}/1`, prompt: "look around", at: "2026-11-30T12:00:00.000Z" },
  { type: "chat_request", turn_id: `${ID}/1`, cycle: 0, bytes: 40, at: "2026-11-30T12:00:00.100Z" },
  {
    type: "chat_response",
    turn_id: `${ID}/1`,
    cycle: 0,
    text: "Two calls.",
    at: "2026-11-30T12:00:01.000Z",
  },
  { type: "tool_call_request", id: "call_1", name: "fs_list_files", arguments: { path: "." } },
  { type: "tool_call_request", id: "call_2", name: "fs_read_file", arguments: { path: "a.txt" } },
  { type: "tool_call_response", id: "call_1", content: "a.txt", is_error: false },
];

const SCRIPT = `
[[cycles]]
text = "Going on."
`;

Deno.test("a conversation cut short by a crash is repaired when continued, and the person is told once", async () => {
  const workspace = await workspaceWith("", { "script.toml": SCRIPT });
  try {
    const dir = join(workspace, "conversations", ID);
    // As spillway lays a conversation out (an older one's 0755 folders get a note of their own).
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(
      join(dir, "events.jsonl"),
      CUT_SHORT.map((event) => JSON.stringify(event) + "\n").join(""),
    );

    const run = await continueQuery(workspace, "script.toml", ID, "go on");
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stderr,
      `warning: conversation ${ID}: its last turn was interrupted before it ended; recorded 1 ` +
        `unanswered call as interrupted\n`,
    );
    assert.equal(
      run.stdout,
      `Conversation ${ID} (1 model request, 0 cut responses): conversations/${ID}/events.jsonl\n`,
    );
    const events = await eventsOf(workspace, ID);
    assert.deepEqual(events.slice(0, CUT_SHORT.length), CUT_SHORT);
    const repair = events.slice(CUT_SHORT.length, CUT_SHORT.length + 2);
    assert.deepEqual(repair, [
      { type: "tool_call_response", id: "call_2", content: INTERRUPTED_RESPONSE, is_error: true },
      {
        type: "turn_end",
        turn_id: `${ID}/1`,
        status: "failed",
        reason: INTERRUPTED_TURN_REASON,
        at: repair[1]!.at,
      },
    ]);
    assert.deepEqual(events.slice(CUT_SHORT.length + 2).map((e) => [e.type, e.turn_id]), [
      ["turn_start", `${ID}/2`],
      ["chat_request", `${ID}/2`],
      ["chat_response", `${ID}/2`],
      ["turn_end", `${ID}/2`],
    ]);

    const again = await continueQuery(workspace, "script.toml", ID, "more");
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stderr, "", "told once");
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});
