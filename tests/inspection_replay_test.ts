/**
 * A recorded run (two cut responses, one call asked about, one unknown
 * tool) replayed step by step: what the inspector page is given to show.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { InspectionReplay } from "../src/inspector/inspection_replay.ts";
import type { InspectorView } from "../src/inspector/inspector_view.ts";
import { machineMermaid } from "../src/inspector/machines_markdown.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../src/review/max_tool_response_batch_bytes.ts";
import { MemoryStreamStore } from "../src/stream/memory_stream_store.ts";
import { RECORDED_CALLS, recordRun } from "./_recorded_run.ts";

async function replayOfRecordedRun(store?: MemoryStreamStore) {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "inspect.jsonl");
    const run = await recordRun(path, store);
    const replay = new InspectionReplay();
    for (const line of (await Deno.readTextFile(path)).split("\n")) replay.addLine(line);
    return { run, replay };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Every view of the replay, first step first. */
function views(replay: InspectionReplay): InspectorView[] {
  return Array.from({ length: replay.steps }, (_, i) => replay.viewAt(i + 1));
}

Deno.test("the last step shows every call's sizes before and after each cap, the budget and the notices", async () => {
  const { run, replay } = await replayOfRecordedRun();
  assert.equal(run.output.status, "finished");
  const last = replay.viewAt();
  assert.equal(last.step, replay.steps);
  assert.deepEqual(last.turn, { state: "finished", status: "done" });
  assert.deepEqual(last.active, ["finished"]);
  assert.equal(last.unreadable, 0);
  assert.equal(last.batches.length, 1);
  const [batch] = last.batches;
  assert.ok(batch);
  assert.deepEqual(
    batch.calls.map((call) => [call.id, call.tool, call.route, call.state]),
    [
      ["call_1", "fs_list_files", "unattended", "released"],
      ["call_2", "noisy_test_run", "unattended", "released"],
      ["call_3", "big_report", "unattended", "released"],
      ["call_4", "deploy_preview", "attended", "released"],
      ["call_5", "wiki_search", "answered", "released"],
    ],
  );
  const sizes = Object.fromEntries(batch.calls.map((call) => [
    call.tool,
    [call.raw?.text, call.threshold?.text, call.recorded?.text, call.cutBy.join()],
  ]));
  assert.deepEqual(sizes.fs_list_files, ["26 B", "26 B", "26 B", ""]);
  assert.deepEqual(sizes.noisy_test_run, ["2.0 MB", "256.0 KB", "256.0 KB", "size_threshold"]);
  assert.deepEqual(sizes.big_report, ["5.0 MB", "5.0 MB", "1.7 MB", "batch ceiling"]);
  assert.deepEqual(sizes.deploy_preview, ["39 B", "39 B", "39 B", ""]);
  // What was recorded is what the turn added to the conversation, byte for byte.
  const recorded = run.output.messages.flatMap((message) =>
    message.role === "tool" ? [new TextEncoder().encode(message.content).length] : []
  );
  assert.deepEqual(batch.calls.map((call) => call.recorded?.bytes), recorded);
  const spent = recorded.reduce((sum, bytes) => sum + bytes, 0);
  assert.ok(spent <= MAX_TOOL_RESPONSE_BATCH_BYTES);
  assert.deepEqual(batch.budget.spent, { bytes: spent, text: "2.0 MB" });
  assert.deepEqual(batch.budget.limit, { bytes: MAX_TOOL_RESPONSE_BATCH_BYTES, text: "2.0 MB" });
  assert.equal(batch.budget.commit, "done");
  assert.deepEqual(batch.notices, run.notices);
  assert.equal(batch.notices.length, 2);
});

Deno.test("step by step, the machines' states are lit where the turn runs them", async () => {
  const { replay } = await replayOfRecordedRun();
  const all = views(replay);
  const litWhen = (said: string) => all.find((view) => view.said === said)?.active;
  assert.deepEqual(litWhen("turn → requesting"), ["requesting"]);
  assert.deepEqual(litWhen("turn → toolPhase"), ["toolPhase", "toolPhase_executing"]);
  assert.deepEqual(litWhen("phase → capping"), ["toolPhase", "toolPhase_capping"]);
  assert.deepEqual(litWhen("commit → flushing"), [
    "toolPhase",
    "toolPhase_committing",
    "toolPhase_committing_flushing",
  ]);
  assert.deepEqual(litWhen("turn → closing"), ["closing"]);
  // Every id lit at every step is a state of the diagram the page draws.
  const turn = machineMermaid("turn");
  const toolCall = machineMermaid("toolCall");
  for (const view of all) {
    for (const id of view.active) assert.match(turn, new RegExp(`(^| )${id}( |$)`, "m"), id);
    for (const call of view.batches.flatMap((batch) => batch.calls)) {
      for (const id of call.active) assert.match(toolCall, new RegExp(`(^| )${id}( |$)`, "m"), id);
    }
  }
});

Deno.test("each call walks the toolCall route: the asked-about one by its actor, the others by the phase", async () => {
  const { replay } = await replayOfRecordedRun();
  const walk = (id: string) => {
    const states: string[] = [];
    for (const view of views(replay)) {
      const state = view.batches.at(-1)?.calls.find((call) => call.id === id)?.state;
      if (state !== undefined && states.at(-1) !== state) states.push(state);
    }
    return states;
  };
  assert.deepEqual(walk("call_2"), ["execute", "reviewSlot", "barrierAcknowledge", "released"]);
  assert.deepEqual(walk("call_4"), [
    "execute",
    "execute.running",
    "resultPrompt.prompting",
    "barrierAcknowledge",
    "released",
  ]);
  const said = views(replay).map((view) => view.said);
  assert.ok(said.includes("call_4 (asked about) → resultPrompt.prompting"), said.join("\n"));
  assert.ok(said.includes("phase end: call_2 cut to 256.0 KB by size_threshold"));
  assert.ok(
    said.includes("commit: 5 responses recorded and released, 2.0 MB of the 2.0 MB ceiling spent"),
  );
});

Deno.test("before the commit, the budget shows what the capped responses ask of the ceiling", async () => {
  const { replay } = await replayOfRecordedRun();
  const capped = views(replay).find((view) => view.said.startsWith("phase end:"));
  const budget = capped?.batches[0]?.budget;
  assert.equal(budget?.spent, undefined);
  assert.equal(budget?.asked?.text, "5.2 MB");
  assert.deepEqual(capped?.batches[0]?.notices, []);
});

Deno.test("a commit whose flush failed: nothing recorded, no notice, the turn failed", async () => {
  let flushes = 0;
  // The first flush is the model's answer; the second is the batch's.
  const store = new MemoryStreamStore({ failFlush: () => ++flushes === 2 });
  const { run, replay } = await replayOfRecordedRun(store);
  assert.equal(run.output.status, "failed");
  const last = replay.viewAt();
  assert.deepEqual(last.turn, { state: "failed", status: "done" });
  const [batch] = last.batches;
  assert.equal(batch?.budget.commit, "failed");
  assert.equal(batch?.budget.spent?.bytes, 0);
  assert.deepEqual(batch?.notices, []);
  assert.ok(batch?.calls.every((call) => call.recorded === undefined));
  const said = views(replay).map((view) => view.said);
  assert.ok(
    said.some((line) =>
      line.startsWith("commit failed: the results of this batch were not recorded")
    ),
    said.join("\n"),
  );
});

Deno.test("a replay counts lines that are not records, and clamps the step it is asked for", () => {
  const replay = new InspectionReplay();
  assert.deepEqual(replay.viewAt(), {
    step: 0,
    steps: 0,
    said: "",
    turn: { state: undefined, status: undefined },
    active: [],
    batches: [],
    sessions: [],
    clients: [],
    upstreams: [],
    unreadable: 0,
  });
  for (const line of ['{"type":"@xstate.snapshot","actor":"turn"', "[1]", "", '{"type":1}']) {
    replay.addLine(line);
  }
  replay.addLine(
    '{"type":"@xstate.snapshot","actor":"turn","state":"requesting","status":"active"}',
  );
  replay.addLine(
    '{"type":"@xstate.snapshot","actor":"turn","state":"requesting","status":"active"}',
  );
  assert.equal(replay.steps, 1, "a repeated state is no step");
  assert.equal(replay.viewAt(99).step, 1);
  assert.equal(replay.viewAt(-3).step, 0);
  assert.equal(replay.viewAt().unreadable, 3);
  assert.deepEqual(RECORDED_CALLS.length, 5);
});
