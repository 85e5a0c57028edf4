/**
 * What `--inspect FILE` records besides XState's own events: the sizes a
 * person wants to see next to the states. Seven events of the machines carry
 * them, as they run: the model's answer (`xstate.done.actor.requestModel`:
 * the calls), the start of a phase that calls started elsewhere join
 * (`xstate.init` with `joined` calls in its input: `spillway serve`'s
 * batches), a written slot (`slot.written`, and `runUnattendedCalls`'s
 * done event for the calls nobody is asked about: each raw result), the
 * phase end (`xstate.done.actor.capSlots`: each response after its tool's
 * `size_threshold`), and the commit (`xstate.done.actor.commit`: each
 * response as recorded after the batch ceiling, the notices, the budget);
 * and an upstream connection's listing (`xstate.done.actor.listTools`: the
 * names of the server's tools, so a reader can tell which connection a
 * call went through). Only sizes and names are kept, never the contents.
 *
 * @module
 */

import type { InspectionEvent } from "xstate";
import type { CappedSlots } from "../machines/cap_slots.ts";
import type { CallRoute, IndexedReview } from "../machines/call_record.ts";
import type { CommitOutput } from "../machines/commit_machine.ts";
import type { PhaseInput } from "../machines/phase_machine.ts";
import type { AssistantMessage } from "../provider/provider.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../review/max_tool_response_batch_bytes.ts";
import { formatNotice, type NoticeFact } from "../review/notice.ts";
import type { Review } from "../review/review.ts";
import { responseBytes, structuredBytes } from "../review/tool_call_response.ts";
import { utf8Length } from "../size/cap_text.ts";

/** A call the model asked for. */
export interface CallFact {
  readonly id: string;
  readonly tool: string;
}

/** A slot as written: the raw result, before any cap. */
export interface SlotFact {
  /** The call's position in its batch. */
  readonly index: number;
  readonly id: string;
  readonly tool: string;
  /** UTF-8 bytes of the raw response. */
  readonly bytes: number;
  readonly isError: boolean;
}

/** A slot after the phase end. */
export interface CappedFact {
  readonly index: number;
  readonly id: string;
  readonly tool: string;
  readonly route: CallRoute;
  /** UTF-8 bytes before any cap. */
  readonly rawBytes: number;
  /** UTF-8 bytes after the tool's `size_threshold`. */
  readonly bytes: number;
}

/** A response as recorded (after the batch ceiling). */
export interface RecordedFact {
  readonly id: string;
  readonly bytes: number;
  readonly isError: boolean;
  /**
   * UTF-8 bytes of its structured content's compact JSON, where the batch
   * ceiling counts it apart from the text (a text that mirrors it counts
   * once); absent otherwise.
   */
  readonly structuredBytes?: number;
}

/** A notice, with the line the terminal printed for it. */
export interface NoticeRecord extends NoticeFact {
  readonly text: string;
}

/** The facts one inspection record carries, by `kind`. */
export type InspectionFacts =
  | { readonly kind: "calls"; readonly calls: readonly CallFact[] }
  | {
    readonly kind: "joined";
    /** The phase's calls, in batch order: its own (none in `spillway serve`), then the joined. */
    readonly calls: readonly CallFact[];
  }
  | { readonly kind: "slots"; readonly slots: readonly SlotFact[] }
  | {
    readonly kind: "capped";
    readonly calls: readonly CappedFact[];
    /** The phase end's notices (cause `size_threshold`). */
    readonly notices: readonly NoticeRecord[];
  }
  | {
    readonly kind: "committed";
    readonly status: "done" | "failed";
    /** In call order; empty when the commit failed (nothing was recorded). */
    readonly calls: readonly RecordedFact[];
    /** Every notice of the batch, as printed; empty when the commit failed. */
    readonly notices: readonly NoticeRecord[];
    /** The batch ceiling and how much of it the recorded responses spent. */
    readonly budget: { readonly limit: number; readonly spent: number };
    /** Why the commit failed. */
    readonly error?: string;
  }
  | {
    readonly kind: "tools";
    /** The names of the tools an upstream server listed. */
    readonly tools: readonly string[];
  };

/**
 * The facts `event` carries, if it is one of the seven events that carry
 * any; `undefined` for every other event.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { InspectionEvent } from "xstate";
 * import { inspectionFacts } from "./inspection_facts.ts";
 * const answer = {
 *   type: "@xstate.event",
 *   event: {
 *     type: "xstate.done.actor.requestModel",
 *     output: { text: "", toolCalls: [{ id: "c1", name: "ls", arguments: {} }] },
 *   },
 * } as unknown as InspectionEvent;
 * assert.deepEqual(inspectionFacts(answer), { kind: "calls", calls: [{ id: "c1", tool: "ls" }] });
 * ```
 */
export function inspectionFacts(event: InspectionEvent): InspectionFacts | undefined {
  if (event.type !== "@xstate.event") return undefined;
  const carried = event.event as { readonly type: string; readonly output?: unknown };
  switch (carried.type) {
    case "xstate.done.actor.requestModel": {
      const answer = carried.output as AssistantMessage;
      return {
        kind: "calls",
        calls: answer.toolCalls.map((call) => ({ id: call.id, tool: call.name })),
      };
    }
    case "xstate.init": {
      const input = (carried as { readonly input?: Partial<PhaseInput> }).input;
      if (!Array.isArray(input?.joined) || input.joined.length === 0) return undefined;
      return {
        kind: "joined",
        calls: [...input.calls ?? [], ...input.joined.map(({ call }) => call)].map((call) => ({
          id: call.id,
          tool: call.name,
        })),
      };
    }
    case "slot.written":
      return { kind: "slots", slots: [slotFact(carried as unknown as IndexedReview)] };
    case "xstate.done.actor.runUnattendedCalls":
      return { kind: "slots", slots: (carried.output as IndexedReview[]).map(slotFact) };
    case "xstate.done.actor.capSlots": {
      const capped = carried.output as CappedSlots;
      return {
        kind: "capped",
        calls: capped.records.flatMap(({ index, call, route, review }) =>
          review === undefined ? [] : [{
            index,
            id: call.id,
            tool: call.name,
            route,
            rawBytes: rawBytes(review),
            bytes: responseBytes(review.response),
          }]
        ),
        notices: capped.notices.map(noticeRecord),
      };
    }
    case "xstate.done.actor.listTools": {
      const listed = carried.output as readonly { readonly name?: unknown }[];
      if (!Array.isArray(listed)) return undefined;
      return {
        kind: "tools",
        tools: listed.flatMap((tool) => typeof tool.name === "string" ? [tool.name] : []),
      };
    }
    case "xstate.done.actor.commit": {
      const committed = carried.output as CommitOutput;
      const calls = committed.recorded.map((response): RecordedFact => {
        const { id, content, isError } = response;
        const structured = structuredBytes(response);
        const fact = { id, bytes: utf8Length(content), isError };
        return structured === undefined ? fact : { ...fact, structuredBytes: structured };
      });
      return {
        kind: "committed",
        status: committed.status,
        calls,
        notices: committed.notices.map(noticeRecord),
        budget: {
          limit: MAX_TOOL_RESPONSE_BATCH_BYTES,
          spent: calls.reduce((sum, call) => sum + call.bytes + (call.structuredBytes ?? 0), 0),
        },
        ...(committed.error === undefined ? {} : { error: committed.error.message }),
      };
    }
    default:
      return undefined;
  }
}

function slotFact({ index, review }: IndexedReview): SlotFact {
  return {
    index,
    id: review.response.id,
    tool: review.tool,
    bytes: rawBytes(review),
    isError: review.response.isError,
  };
}

/**
 * UTF-8 bytes of a review's text before any cut: its uncut text once cut,
 * else its response's (an output too large to hold counts whole, not the
 * head held in memory).
 */
function rawBytes(review: Review): number {
  const { uncut } = review;
  if (uncut === undefined) return responseBytes(review.response);
  return typeof uncut === "string" ? utf8Length(uncut) : uncut.bytes;
}

function noticeRecord(fact: NoticeFact): NoticeRecord {
  return { ...fact, text: formatNotice(fact) };
}
