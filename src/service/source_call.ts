/**
 * One tool call against its source, as the execution service sees it: the
 * outcome that parks (executed, lost, cancelled, failed) plus the validated
 * MCP result kept for a `deliver`; and the result a caller finally receives
 * for each kind of acknowledgement.
 *
 * @module
 */

import { SpillwayError } from "../errors/spillway_error.ts";
import { reasonText } from "../errors/reason_text.ts";
import { CallCancellation } from "./call_cancellation.ts";
import type { ResolvedRoute } from "./tool_routes.ts";
import type { Acknowledgement, ExecutionOutcome } from "./executor.ts";
import { type CallToolResult, CallToolResultSchema } from "./sdk.ts";
import { blockPayload, type Payload } from "./payload_bytes.ts";
import { toToolCallResponse } from "./to_tool_call_response.ts";
import { type ToolCallOptions, ToolLostError } from "./tool_source.ts";
import { describeIssues, malformedResultError } from "./tool_source_faults.ts";
import { type ObjectToolResult, toolResultOf } from "./tool_result_of.ts";
import * as files from "../platform/files.ts";

/** How a source call ended, and the tool's own result when it ran. */
export interface SourceCallEnd {
  readonly outcome: ExecutionOutcome;
  /** The validated MCP result, present exactly when `outcome.kind` is `executed`. */
  readonly result?: CallToolResult;
  /**
   * The payload of each block of `result` (`undefined` for a block without
   * one), decoded and hashed once for the recorded digests, present when
   * some block has one: the service keeps them in its blob store from
   * here, then drops them before the call parks.
   */
  readonly payloads?: readonly (Payload | undefined)[];
}

/** An `isError` text result. */
export function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * Whether `value` is a result of text blocks only, with nothing else but an
 * optional boolean `isError` — what builtin and local tools return. Such a
 * result is valid MCP as it is, so the schema check is skipped for it: the
 * check copies the whole result, and in a batch of 1,000 calls those copies
 * stay alive until the commit releases them (garbage-collection work).
 */
function isPlainTextResult(value: unknown): value is CallToolResult {
  if (typeof value !== "object" || value === null) return false;
  for (const key in value) if (key !== "content" && key !== "isError") return false;
  const { content, isError } = value as { content?: unknown; isError?: unknown };
  if (isError !== undefined && typeof isError !== "boolean") return false;
  if (!Array.isArray(content)) return false;
  for (const block of content) {
    if (typeof block !== "object" || block === null) return false;
    for (const key in block) if (key !== "type" && key !== "text") return false;
    if (block.type !== "text" || typeof block.text !== "string") return false;
  }
  return true;
}

/** The payload of each block of `result`, or `undefined` when no block has one. */
function payloadsOf(result: CallToolResult): (Payload | undefined)[] | undefined {
  const payloads = result.content.map(blockPayload);
  return payloads.some((payload) => payload !== undefined) ? payloads : undefined;
}

/**
 * Runs `route` with `args`. Never rejects: an abort (checked first, so a
 * cancelled call is `cancelled` whatever the source did next), a
 * {@linkcode ToolLostError}, any other exception and a result that is not a
 * valid MCP `CallToolResult` each become an outcome. The faults sources
 * report themselves (`SpillwayError`s such as an unknown tool, and lost
 * calls) keep their message, which names the source; anything else a
 * source throws is prefixed with the source's name.
 */
export async function runSourceCall(
  route: ResolvedRoute,
  callId: string,
  args: Readonly<Record<string, unknown>>,
  signal: AbortSignal,
  extra: Omit<ToolCallOptions, "signal"> = {},
): Promise<SourceCallEnd> {
  const cancelled = (): SourceCallEnd => {
    const cause = CallCancellation.causeOf(signal.reason);
    const reason = reasonText(signal.reason);
    return {
      outcome: cause === undefined
        ? { kind: "cancelled", reason }
        : { kind: "cancelled", reason, cause },
    };
  };
  const { source, sourceTool } = route;
  try {
    if (signal.aborted) return cancelled();
    const raw = await source.call(sourceTool, args, { ...extra, signal });
    // A window (an output too large to hold) and its blob ride along on the
    // response for the Host; the caller's result never carries them.
    const { window, spilled } = raw;
    if (signal.aborted) {
      // Cancelled after the output was spooled: nobody will release this call's file.
      if (window?.temporary === true) await files.remove(window.path).catch(() => {});
      return cancelled();
    }
    // Validated here, not at delivery: a malformed result must park as a
    // failure the Host records, not surprise the caller after the commit.
    let result: ObjectToolResult;
    // An image, audio clip or embedded resource is decoded and hashed here,
    // once: the recorded digest and the kept blob both come from this pass.
    let payloads: (Payload | undefined)[] | undefined;
    if (isPlainTextResult(raw)) {
      result = raw;
    } else {
      const parsed = CallToolResultSchema.safeParse(raw);
      if (!parsed.success) {
        const flaw = describeIssues(parsed.error.issues);
        const { message } = malformedResultError(source.name, sourceTool, flaw);
        return { outcome: { kind: "failed", reason: message } };
      }
      result = toolResultOf(parsed.data);
      payloads = payloadsOf(result);
    }
    let response = payloads === undefined
      ? toToolCallResponse(callId, result, { parked: true })
      : toToolCallResponse(callId, result, { payloads, parked: true });
    if (window !== undefined) response = { ...response, window };
    if (spilled !== undefined) response = { ...response, spilled };
    const outcome = { kind: "executed", response } as const;
    return payloads === undefined ? { outcome, result } : { outcome, result, payloads };
  } catch (error) {
    if (signal.aborted) return cancelled();
    if (error instanceof ToolLostError) return { outcome: { kind: "lost", reason: error.message } };
    const reason = error instanceof SpillwayError
      ? error.message
      : `${source.name}: ${reasonText(error)}`;
    return { outcome: { kind: "failed", reason } };
  }
}

/**
 * What the caller receives for `ack`: `deliver` → the tool's own result
 * (non-text content included), or for a call that did not execute an error
 * with its reason; `replace` → exactly `ack.content` as one text block,
 * with `ack.structuredContent` when the Host kept one
 * ({@linkcode replacementResult}); `fail` → an error with `ack.message`.
 */
export function deliveryFor(end: SourceCallEnd, ack: Acknowledgement): CallToolResult {
  switch (ack.kind) {
    case "deliver":
      // A window's result holds only the head: the Host always cuts such a
      // response (it is larger than any cap), so delivering it whole is a bug.
      if (end.outcome.kind === "executed" && end.outcome.response.window !== undefined) {
        return errorResult("internal error: an output too large to hold was to be delivered whole");
      }
      if (end.result !== undefined) return end.result;
      return errorResult(end.outcome.kind === "executed" ? "" : end.outcome.reason);
    case "replace":
      return replacementResult(ack);
    case "fail":
      return errorResult(ack.message);
  }
}

/**
 * The `_meta` key of a delivered result whose `structuredContent` is a cut
 * of the tool's own: `{ originalBytes, bytes }`, the UTF-8 bytes of its
 * compact JSON before and after the cut (the text's marker names the
 * text's sizes).
 */
export const STRUCTURED_CUT_META_KEY = "spillway/structuredContentCut";

/**
 * The result a `replace` acknowledgement delivers: its text as one block,
 * its error flag, and its structured content when it has one (with
 * `_meta[STRUCTURED_CUT_META_KEY]` when that is a cut).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { replacementResult } from "./source_call.ts";
 * assert.deepEqual(
 *   replacementResult({ kind: "replace", content: "cut", isError: false, structuredContent: { n: 1 } }),
 *   { content: [{ type: "text", text: "cut" }], isError: false, structuredContent: { n: 1 } },
 * );
 * const structuredCut = { originalBytes: 5000, bytes: 9 };
 * assert.deepEqual(
 *   replacementResult({ kind: "replace", content: "c", isError: false, structuredContent: {}, structuredCut })
 *     ._meta,
 *   { "spillway/structuredContentCut": { originalBytes: 5000, bytes: 9 } },
 * );
 * ```
 */
export function replacementResult(
  ack: Extract<Acknowledgement, { kind: "replace" }>,
): ObjectToolResult {
  const structuredCut = ack.structuredCut;
  return {
    content: [{ type: "text", text: ack.content }],
    isError: ack.isError,
    ...(ack.structuredContent === undefined ? {} : { structuredContent: ack.structuredContent }),
    ...(structuredCut === undefined ? {} : {
      _meta: {
        [STRUCTURED_CUT_META_KEY]: {
          originalBytes: structuredCut.originalBytes,
          bytes: structuredCut.bytes,
        },
      },
    }),
  };
}
