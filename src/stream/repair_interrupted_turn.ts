/**
 * Crash repair, run whenever a conversation is opened for a new turn. A
 * turn that never ended (spillway was killed, the machine went down) leaves
 * calls without responses and no `turn_end`; a batch whose commit failed
 * leaves calls without responses. Sent as they are, the model would see
 * tool calls nobody answered (providers reject that), and the person would
 * never learn the turn was cut short.
 *
 * The repair is decided from the events alone ({@linkcode planTurnRepair}):
 * every unanswered call of the last turn gets an error response saying it
 * was interrupted, and a turn without `turn_end` gets one, failed, with the
 * reason. {@linkcode repairInterruptedTurn} appends those events and flushes
 * once, and returns the one warning line that tells the person. Once
 * recorded, the next open finds nothing to repair: the person is told once.
 *
 * @module
 */

import type { StreamEvent, ToolCallResponseEvent } from "./events.ts";
import type { ConversationStream, LoadedStream } from "./stream_store.ts";

/** The response recorded for a call whose result was never recorded. */
export const INTERRUPTED_RESPONSE = "interrupted: this call's result was never recorded " +
  "(spillway stopped, or could not write the conversation), so it is unknown";

/** The `turn_end` reason of a turn that never ended. */
export const INTERRUPTED_TURN_REASON =
  "interrupted: the turn never ended (spillway stopped mid-turn)";

/** What the last turn of a conversation lacks. */
export interface TurnRepair {
  /** The events to append: one response per unanswered call, then `turn_end` if it was missing. */
  readonly events: readonly StreamEvent[];
  /** How many calls get an interrupted response. */
  readonly calls: number;
  /** Whether the turn had no `turn_end`. */
  readonly unended: boolean;
}

/**
 * What the last turn of `events` needs to be whole: an interrupted response
 * for each of its calls without one (a call id used twice needs two), and a
 * failed `turn_end` when it has none. Pure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planTurnRepair } from "./repair_interrupted_turn.ts";
 * const repair = planTurnRepair([
 *   { type: "turn_start", turn_id: "c/1", prompt: "go", at: "2026-11-30T00:00:00Z" },
 *   { type: "tool_call_request", id: "call_1", name: "ls", arguments: {} },
 * ], "2026-11-30T00:01:00Z");
 * assert.equal(repair?.calls, 1);
 * assert.equal(repair?.unended, true);
 * assert.deepEqual(repair?.events.map((e) => e.type), ["tool_call_response", "turn_end"]);
 * ```
 *
 * @param events the conversation, in stream order
 * @param at the timestamp of the `turn_end` it adds
 * @returns the repair, or `undefined` when the last turn is whole (or there is none)
 */
export function planTurnRepair(
  events: readonly StreamEvent[],
  at: string,
): TurnRepair | undefined {
  let start = events.length;
  while (start > 0 && events[start - 1]!.type !== "turn_start") start -= 1;
  const turnStart = events[start - 1];
  if (turnStart?.type !== "turn_start") return undefined; // no turn at all
  const turn = events.slice(start);
  const answers = new Map<string, number>();
  let ended = false;
  for (const event of turn) {
    if (event.type === "tool_call_response") {
      answers.set(event.id, (answers.get(event.id) ?? 0) + 1);
    } else if (event.type === "turn_end" && event.turn_id === turnStart.turn_id) {
      ended = true;
    }
  }
  const responses: ToolCallResponseEvent[] = [];
  for (const event of turn) {
    if (event.type !== "tool_call_request") continue;
    const left = answers.get(event.id) ?? 0;
    if (left > 0) {
      answers.set(event.id, left - 1);
      continue;
    }
    responses.push({
      type: "tool_call_response",
      id: event.id,
      content: INTERRUPTED_RESPONSE,
      is_error: true,
    });
  }
  if (ended && responses.length === 0) return undefined;
  return {
    events: ended ? responses : [...responses, {
      type: "turn_end",
      turn_id: turnStart.turn_id,
      status: "failed",
      reason: INTERRUPTED_TURN_REASON,
      at,
    }],
    calls: responses.length,
    unended: !ended,
  };
}

/**
 * The warning that tells a person about a repair, naming the conversation
 * and how many calls were recorded as interrupted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { turnRepairWarning } from "./repair_interrupted_turn.ts";
 * assert.equal(
 *   turnRepairWarning("c1", { events: [], calls: 2, unended: true }),
 *   "conversation c1: its last turn was interrupted before it ended; recorded 2 unanswered calls as interrupted",
 * );
 * ```
 */
export function turnRepairWarning(conversation: string, repair: TurnRepair): string {
  const calls = `${repair.calls} unanswered call${repair.calls === 1 ? "" : "s"}`;
  if (!repair.unended) {
    return `conversation ${conversation}: its last turn ended with ${calls}; recorded ` +
      `${repair.calls === 1 ? "it" : "them"} as interrupted`;
  }
  return `conversation ${conversation}: its last turn was interrupted before it ended; ` +
    (repair.calls === 0 ? "recorded its end" : `recorded ${calls} as interrupted`);
}

/** Options of {@linkcode repairInterruptedTurn}. */
export interface RepairOptions {
  /** The timestamp of a `turn_end` the repair adds (ISO 8601). */
  readonly at: string;
}

/**
 * Loads `stream` and, when its last turn is not whole, records the repair
 * ({@linkcode planTurnRepair}) with one append and one flush.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryStreamStore } from "./memory_stream_store.ts";
 * import { repairInterruptedTurn } from "./repair_interrupted_turn.ts";
 * const store = new MemoryStreamStore();
 * const stream = await store.open("c1");
 * await stream.append([
 *   { type: "turn_start", turn_id: "c1/1", prompt: "go", at: "2026-11-30T00:00:00Z" },
 *   { type: "tool_call_request", id: "call_1", name: "ls", arguments: {} },
 * ]);
 * const loaded = await repairInterruptedTurn(stream, { at: "2026-11-30T00:01:00Z" });
 * assert.equal(loaded.events.length, 4);
 * assert.equal(store.durableEvents("c1").length, 4);
 * assert.match(loaded.warnings[0]!, /^conversation c1: its last turn was interrupted/);
 * ```
 *
 * @param stream the conversation, open
 * @param options the repair's timestamp
 * @returns what `stream.load()` returns, the repair included, its warning last
 * @throws {SpillwayError} `store_failed` when loading, appending or flushing fails
 */
export async function repairInterruptedTurn(
  stream: ConversationStream,
  options: RepairOptions,
): Promise<LoadedStream> {
  const loaded = await stream.load();
  const repair = planTurnRepair(loaded.events, options.at);
  if (repair === undefined) return loaded;
  await stream.append(repair.events);
  await stream.flush();
  return {
    events: [...loaded.events, ...repair.events],
    warnings: [...loaded.warnings, turnRepairWarning(stream.id, repair)],
  };
}
