/**
 * The per-tool cap, applied once per slot when a phase ends, after result
 * prompts (so it sees what a user pasted into the editor). It also settles
 * how the response is cut should the batch ceiling cut it later: with its
 * tool's truncation strategy.
 *
 * @module
 */

import type { SizeThreshold } from "../size/size_threshold.ts";
import type { Truncation } from "../size/truncation.ts";
import { cutReview } from "./cut_review.ts";
import type { NoticeFact } from "./notice.ts";
import type { OutputSchema } from "./output_schema.ts";
import type { Review } from "./review.ts";
import { isOver } from "./tool_call_response.ts";

/** How {@linkcode capReview} cuts. */
export interface CapReviewOptions {
  /** The tool's truncation strategy; default: keep the head. */
  readonly truncation?: Truncation | undefined;
  /**
   * Which setting the threshold stands for, named by the notice. Default
   * `size_threshold`; `spillway serve` passes `client ceiling` when its
   * ceiling is the lower limit.
   */
  readonly cause?: "size_threshold" | "client ceiling" | undefined;
  /** Whose client ceiling it is (see {@linkcode NoticeFact.client}); only with `client ceiling`. */
  readonly client?: string | undefined;
  /**
   * The tool's output schema, when its results must carry structured
   * content conforming to it (see {@linkcode Review.outputSchema}): a cut
   * keeps a cut structured value only when the schema accepts it, and a
   * replaced response without one becomes an error result. Default: none.
   */
  readonly outputSchema?: OutputSchema | undefined;
}

/**
 * Caps a review at its tool's `size_threshold`, keeping the end(s) its
 * `truncation` names. A review that fits, or an unlimited threshold, keeps
 * its content; a cut yields a replaced review and the facts of its notice
 * (cause `size_threshold`). Each part of the response is held to the
 * threshold: its text, and its structured content (compact JSON) unless the
 * text mirrors it. Under a strategy other than the head, the returned
 * review carries it, so that the batch ceiling cuts the same way.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { capReview } from "./cap_review.ts";
 * import { acceptedReview } from "./review.ts";
 * import { SizeThreshold } from "../size/size_threshold.ts";
 * const review = acceptedReview("t", { id: "c1", content: "y".repeat(5000) + "end", isError: false });
 * const { review: capped, notice } = capReview(review, SizeThreshold.parse("1KB"), {
 *   truncation: { strategy: "tail", headPercent: 50 },
 * });
 * assert.equal(capped.status, "replaced");
 * assert.ok(capped.response.content.endsWith("yyyend"));
 * assert.equal(notice?.cause, "size_threshold");
 * ```
 */
export function capReview(
  review: Review,
  threshold: SizeThreshold,
  options: CapReviewOptions = {},
): { review: Review; notice?: NoticeFact } {
  const truncated = options.truncation === undefined ? review : settle(review, options.truncation);
  const { outputSchema } = options;
  const settled = outputSchema === undefined ? truncated : structured(truncated, outputSchema);
  const limit = threshold.bytes;
  if (limit === undefined) return { review: settled };
  // Measured on what the review carries now: an earlier cut that fits stays;
  // a recut starts from the uncut response inside cutReview.
  if (!isOver(review.response, limit.bytes)) return { review: settled };
  const cut = cutReview(settled, limit.bytes, options.cause ?? "size_threshold");
  const { client } = options;
  if (client === undefined || options.cause !== "client ceiling") return cut;
  return { review: cut.review, notice: { ...cut.notice, client } };
}

/**
 * `review` of a tool whose results must carry structured content conforming
 * to `schema`: marked so that its cuts are checked against it, and an error
 * result already when it is a replaced response without structured content
 * (a person's edit).
 */
function structured(review: Review, schema: OutputSchema): Review {
  const { response } = review;
  const isError = response.isError ||
    (review.status === "replaced" && response.structuredContent === undefined);
  return {
    ...review,
    outputSchema: schema,
    ...(isError === response.isError ? {} : { response: { ...response, isError } }),
  };
}

/** `review` set to be cut with `truncation` (the head is the absence of a strategy). */
function settle(review: Review, truncation: Truncation): Review {
  if (truncation.strategy !== "head") return { ...review, truncation };
  if (review.truncation === undefined) return review;
  const { truncation: _dropped, ...rest } = review;
  return rest;
}
