/**
 * Shared by the adapter tests: one tool round of an agent framework with
 * spillway's adapter in it, against the loopback fake model, and the
 * checks every adapter must pass on it. Each test file says how its
 * framework runs a round ({@linkcode RunRound}); the bodies here check
 * that the model is sent exactly what was recorded (cut, with the marker),
 * that the notice is printed and the whole output is kept, the ceiling over
 * a step or a call, and that a failure to record fails the run with the
 * model sent nothing unrecorded.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ToolOutputCap, type ToolOutputCapOptions } from "../../src/adapters/tool_output_cap.ts";
import { parseConfig } from "../../src/config/parse_config.ts";
import { formatNotice } from "../../src/review/notice.ts";
import { FileStreamStore } from "../../src/stream/file_stream_store.ts";
import type { ToolCallResponseEvent } from "../../src/stream/events.ts";
import { MemoryStreamStore } from "../../src/testing/mod.ts";
import { bigLog, type ReplyCall } from "./_responses_reply.ts";

/** What one round showed. */
export interface AdapterRound {
  /** How the framework's run ended. */
  readonly result: { readonly ok: true } | { readonly ok: false; readonly error: unknown };
  /** The model calls the fake model got. */
  readonly modelCalls: number;
  /** The tool outputs the model was sent after the tools ran, by call id. */
  readonly sent: ReadonlyMap<string, string>;
  /** The conversation the adapter recorded into. */
  readonly conversationId: string;
}

/**
 * Runs the framework once with the adapter made from `options`: the fake
 * model makes `calls` (one step), then answers "done". The adapter's cap is
 * closed when it returns.
 */
export type RunRound = (
  calls: readonly ReplyCall[],
  options: ToolOutputCapOptions,
) => Promise<AdapterRound>;

/** The `tool_call_response` texts recorded in `workspace`'s conversation `id`, by call id. */
export async function recordedResponses(
  workspace: string,
  id: string,
): Promise<Map<string, string>> {
  const stream = await new FileStreamStore(join(workspace, "conversations")).open(id);
  const { events } = await stream.load();
  await stream.close();
  return new Map(
    events.filter((e): e is ToolCallResponseEvent => e.type === "tool_call_response")
      .map((e) => [e.id, e.content]),
  );
}

const bytesOf = (text: string) => new TextEncoder().encode(text).length;

/** A 300,000-byte output under a 64KB threshold: sent as recorded, cut, noticed, kept whole. */
export async function sendsTheRecordedCut(run: RunRound): Promise<void> {
  const workspace = await Deno.makeTempDir();
  try {
    const lines: string[] = [];
    const round = await run([{ id: "c1", name: "big_log", arguments: { bytes: 300_000 } }], {
      workspace,
      config: parseConfig('[conversation.tools.big_log]\nsize_threshold = "64KB"'),
      notices: { notice: (fact) => void lines.push(formatNotice(fact)) },
    });
    assert.equal(round.result.ok, true, String(round.result.ok || round.result.error));
    assert.equal(round.modelCalls, 2);
    const sent = round.sent.get("c1")!;
    assert.equal(sent, (await recordedResponses(workspace, round.conversationId)).get("c1"));
    assert.ok(sent.includes("\n... [truncated, 292.9 KB → 64.0 KB]\n"), sent.slice(-300));
    assert.ok(bytesOf(sent) <= 64 * 1024);
    assert.deepEqual(lines, [
      "big_log: sent 64.0 KB of 292.9 KB to the assistant (size_threshold)",
    ]);
    const ref = /read_tool_output ref="(sha256:[0-9a-f]{64})"/.exec(sent)?.[1];
    assert.ok(ref !== undefined, "the cut names the whole output");
    // The whole output, read back through a cap over the same workspace.
    const reader = await ToolOutputCap.open({ workspace });
    try {
      assert.equal(await reader.readOutput(ref, 0, 300_000), bigLog(300_000));
    } finally {
      await reader.close();
    }
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
}

/** Three results of one step, no threshold: together within `ceiling`, largest cut first. */
export async function keepsTheStepWithinTheCeiling(run: RunRound, ceiling: number): Promise<void> {
  const workspace = await Deno.makeTempDir();
  try {
    const lines: string[] = [];
    const sizes = [1_500_000, 1_200_000, 40_000];
    const round = await run(
      sizes.map((bytes, i) => ({ id: `c${i}`, name: "big_log", arguments: { bytes } })),
      {
        workspace,
        config: parseConfig('[conversation.tools.big_log]\nsize_threshold = "unlimited"'),
        notices: { notice: (fact) => void lines.push(formatNotice(fact)) },
      },
    );
    assert.equal(round.result.ok, true, String(round.result.ok || round.result.error));
    assert.deepEqual(round.sent, await recordedResponses(workspace, round.conversationId));
    const total = [...round.sent.values()].reduce((sum, text) => sum + bytesOf(text), 0);
    assert.ok(total <= ceiling, `${total} bytes sent`);
    assert.equal(round.sent.get("c2"), bigLog(40_000), "the small result stays whole");
    assert.ok(round.sent.get("c0")!.includes("... [truncated, 1.4 MB → "));
    assert.ok(round.sent.get("c1")!.includes("... [truncated, 1.1 MB → "));
    assert.equal(lines.length, 2);
    assert.ok(lines.every((line) => line.endsWith("(batch ceiling)")), lines.join("\n"));
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
}

/**
 * A 3,000,000-byte and a 40,000-byte result of one step, no threshold, for a
 * hook that shows one call: the big one is cut to `ceiling`, the small one
 * stays whole.
 */
export async function keepsEachCallWithinTheCeiling(run: RunRound, ceiling: number): Promise<void> {
  const workspace = await Deno.makeTempDir();
  try {
    const lines: string[] = [];
    const round = await run([
      { id: "c0", name: "big_log", arguments: { bytes: 3_000_000 } },
      { id: "c1", name: "big_log", arguments: { bytes: 40_000 } },
    ], {
      workspace,
      config: parseConfig('[conversation.tools.big_log]\nsize_threshold = "unlimited"'),
      notices: { notice: (fact) => void lines.push(formatNotice(fact)) },
    });
    assert.equal(round.result.ok, true, String(round.result.ok || round.result.error));
    assert.deepEqual(round.sent, await recordedResponses(workspace, round.conversationId));
    const bytes = bytesOf(round.sent.get("c0")!);
    assert.ok(bytes <= ceiling, `${bytes} bytes sent`);
    assert.match(round.sent.get("c0")!, /\n\.\.\. \[truncated, 2\.8 MB → [\d.]+ [KM]B\]\n/);
    assert.equal(round.sent.get("c1"), bigLog(40_000));
    assert.equal(lines.length, 1);
    assert.match(
      lines[0]!,
      /^big_log: sent [\d.]+ [KM]B of 2\.8 MB to the assistant \(batch ceiling\)$/,
    );
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
}

/** A store that cannot flush: the run fails with the store's error, one model call only. */
export async function failsWhenTheStoreCannotRecord(run: RunRound): Promise<void> {
  const round = await run(
    [{ id: "c1", name: "big_log", arguments: { bytes: 300_000 } }],
    { store: new MemoryStreamStore({ failFlush: true }), spill: false, notices: { notice() {} } },
  );
  assert.equal(round.result.ok, false);
  assert.match(String(round.result.ok ? "" : round.result.error), /store|flush/i);
  assert.equal(round.modelCalls, 1, "no model call carried the unrecorded output");
}
