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
import type { Review } from "./review.ts";
import { responseBytes } from "./tool_call_response.ts";

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
   * Whether the tool's results must carry structured content (see
   * {@linkcode Review.structured}): a replaced response becomes an error result.
   */
  readonly structured?: boolean | undefined;
}

/**
 * Caps a review at its tool's `size_threshold`, keeping the end(s) its
 * `truncation` names. A review that fits, or an unlimited threshold, keeps
 * its content; a cut yields a replaced review and the facts of its notice
 * (cause `size_threshold`). Under a strategy other than the head, the
 * returned review carries it, so that the batch ceiling cuts the same way.
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
  const settled = options.structured === true ? structured(truncated) : truncated;
  const limit = threshold.bytes;
  if (limit === undefined) return { review: settled };
  // Measured on what the review carries now: an earlier cut that fits stays;
  // a recut starts from the uncut text inside cutReview.
  if (responseBytes(review.response) <= limit.bytes) return { review: settled };
  const cut = cutReview(settled, limit.bytes, options.cause ?? "size_threshold");
  const { client } = options;
  if (client === undefined || options.cause !== "client ceiling") return cut;
  return { review: cut.review, notice: { ...cut.notice, client } };
}

/**
 * `review` of a tool whose results must carry structured content: marked so
 * that a later cut is an error result too, and an error result already when
 * it is not the tool's own response.
 */
function structured(review: Review): Review {
  const { response } = review;
  const isError = response.isError || review.status === "replaced";
  return {
    ...review,
    structured: true,
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
