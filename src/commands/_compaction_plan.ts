/**
 * What `conversation compact` would change, before anything is written: the
 * one `compaction` event to append, and for each response it changes, the
 * size the model is sent before and after. The "after" sizes come from the
 * provider view itself with the event applied, so what is printed is what
 * the model will be sent. A conversation with nothing left to change gets
 * no event: running a compaction twice changes nothing the second time.
 *
 * @module
 */

import type { SpillwayConfig } from "../config/spillway_config.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../review/max_tool_response_batch_bytes.ts";
import { waterLevel } from "../review/spend_batch_budget.ts";
import type { CompactionEvent, StreamEvent } from "../stream/events.ts";
import {
  CAP_RESPONSES,
  conversationView,
  STRIP_RESPONSES,
  type ViewedResponse,
} from "../stream/provider_view.ts";

/** One response a compaction changes. */
export interface PlannedChange {
  readonly id: string;
  readonly tool: string;
  /** Bytes the model is sent now. */
  readonly fromBytes: number;
  /** Bytes it will be sent. */
  readonly toBytes: number;
  /** For `cap`: which limit applies. */
  readonly cause?: "size_threshold" | "batch ceiling";
}

/** The event to append (none when nothing would change) and what it changes. */
export interface CompactionPlan {
  readonly event?: CompactionEvent;
  readonly changes: readonly PlannedChange[];
}

/**
 * Plans a `strip-responses` compaction: every response the model is still
 * sent whole that is `overBytes` or larger becomes a stub.
 */
export function planStrip(
  events: readonly StreamEvent[],
  overBytes: number,
  at: string,
): CompactionPlan {
  const chosen = conversationView(events).responses.filter((response) =>
    response.compactedBy?.strategy !== STRIP_RESPONSES && response.viewBytes >= overBytes
  );
  if (chosen.length === 0) return { changes: [] };
  const event: CompactionEvent = {
    type: "compaction",
    strategy: STRIP_RESPONSES,
    over_bytes: overBytes,
    response_ids: unique(chosen.map((response) => response.id)),
    at,
  };
  return withChanges(events, event, new Map());
}

/**
 * Plans a `cap` compaction: each response is cut to its tool's
 * `size_threshold` in today's `config`, and each batch (the responses to one
 * assistant message) to the batch ceiling, spent largest first, exactly as
 * new responses are capped.
 */
export function planCap(
  events: readonly StreamEvent[],
  config: SpillwayConfig,
  at: string,
): CompactionPlan {
  const batches = new Map<number, ViewedResponse[]>();
  for (const response of conversationView(events).responses) {
    batches.set(response.batch, [...(batches.get(response.batch) ?? []), response]);
  }
  const caps = new Map<string, number>();
  const causes = new Map<string, PlannedChange["cause"]>();
  for (const batch of batches.values()) {
    const thresholds = batch.map((response) =>
      config.tool(response.tool === "" ? "*" : response.tool).sizeThreshold().bytes?.bytes ??
        Infinity
    );
    const afterThreshold = batch.map((response, i) =>
      Math.min(response.viewBytes, thresholds[i] as number)
    );
    const level = waterLevel(afterThreshold, MAX_TOOL_RESPONSE_BATCH_BYTES);
    batch.forEach((response, i) => {
      const threshold = thresholds[i] as number;
      const cap = Math.min(threshold, level);
      if (response.viewBytes <= cap) return;
      // One limit per id: a reused id gets the tighter one.
      caps.set(response.id, Math.min(cap, caps.get(response.id) ?? Infinity));
      causes.set(response.id, threshold <= level ? "size_threshold" : "batch ceiling");
    });
  }
  if (caps.size === 0) return { changes: [] };
  const event: CompactionEvent = {
    type: "compaction",
    strategy: CAP_RESPONSES,
    response_ids: [...caps.keys()],
    cap_bytes: [...caps.values()],
    at,
  };
  return withChanges(events, event, causes);
}

/** The plan for `event`: the responses it changes, read from the view with it applied. */
function withChanges(
  events: readonly StreamEvent[],
  event: CompactionEvent,
  causes: ReadonlyMap<string, PlannedChange["cause"]>,
): CompactionPlan {
  const before = conversationView(events).responses;
  const after = conversationView([...events, event]).responses;
  const changes = after.flatMap((response, i): PlannedChange[] => {
    const earlier = before[i];
    if (earlier === undefined || response.viewBytes === earlier.viewBytes) return [];
    const cause = causes.get(response.id);
    return [{
      id: response.id,
      tool: response.tool,
      fromBytes: earlier.viewBytes,
      toBytes: response.viewBytes,
      ...(cause === undefined ? {} : { cause }),
    }];
  });
  return changes.length === 0 ? { changes } : { event, changes };
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
