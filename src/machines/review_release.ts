/**
 * How the commit turns a settled review into what the stream records and
 * what the call is released with (the `commit` machine's decision, kept in
 * one place so the machine reads as states).
 *
 * @module
 */

import type { Review } from "../review/review.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import type { Acknowledgement } from "../service/executor.ts";

/** Deliver the service's own result (one object for every call). */
const DELIVER: Acknowledgement = Object.freeze({ kind: "deliver" });

/**
 * The acknowledgement a recorded review gets: the service's own result only
 * when accepted, else exactly the recorded text, with the structured content
 * the cut kept (its value; the stream records its size and digest).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { acceptedReview, replacedReview } from "../review/review.ts";
 * import { acknowledgementOf } from "./review_release.ts";
 * const response = { id: "call_1", content: "hi", isError: false };
 * assert.deepEqual(acknowledgementOf(acceptedReview("echo", response)), { kind: "deliver" });
 * assert.deepEqual(acknowledgementOf(replacedReview("echo", response)), {
 *   kind: "replace",
 *   content: "hi",
 *   isError: false,
 * });
 * ```
 */
export function acknowledgementOf(review: Review): Acknowledgement {
  if (review.status === "accepted") return DELIVER;
  const { content, isError, structuredContent } = review.response;
  const value = structuredContent?.value;
  if (value === undefined) return { kind: "replace", content, isError };
  const original = review.uncutStructured;
  // Kept whole (only the text was cut), the value is the tool's own: nothing to tell.
  if (original === undefined || original.digest === structuredContent?.digest) {
    return { kind: "replace", content, isError, structuredContent: value };
  }
  const structuredCut = { originalBytes: original.bytes, bytes: structuredContent?.bytes ?? 0 };
  return { kind: "replace", content, isError, structuredContent: value, structuredCut };
}

/** The response as the stream holds it: text, typed blocks and structured content, no spill. */
export function recordedResponse(review: Review): ToolCallResponse {
  const { response } = review;
  // Most responses hold nothing the stream leaves out: recorded as they are, not copied.
  if (response.spilled === undefined && response.window === undefined) return response;
  const { id, content, isError, blocks, structuredContent } = response;
  return {
    id,
    content,
    isError,
    ...(blocks === undefined ? {} : { blocks }),
    ...(structuredContent === undefined ? {} : { structuredContent }),
  };
}
