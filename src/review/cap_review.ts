/**
 * The per-tool cap, applied once per slot when a phase ends, after result
 * prompts (so it sees what a user pasted into the editor).
 *
 * @module
 */

import { utf8Length } from "../size/cap_text.ts";
import type { SizeThreshold } from "../size/size_threshold.ts";
import { cutReview } from "./cut_review.ts";
import type { NoticeFact } from "./notice.ts";
import type { Review } from "./review.ts";

/**
 * Caps a review at its tool's `size_threshold`. A review that fits, or an
 * unlimited threshold, comes back as is; a cut yields a replaced review and
 * the facts of its notice (cause `size_threshold`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { capReview } from "./cap_review.ts";
 * import { acceptedReview } from "./review.ts";
 * import { SizeThreshold } from "../size/size_threshold.ts";
 * const review = acceptedReview("t", { id: "c1", content: "y".repeat(5000), isError: false });
 * const { review: capped, notice } = capReview(review, SizeThreshold.parse("1KB"));
 * assert.equal(capped.status, "replaced");
 * assert.equal(notice?.cause, "size_threshold");
 * ```
 */
export function capReview(
  review: Review,
  threshold: SizeThreshold,
): { review: Review; notice?: NoticeFact } {
  const limit = threshold.bytes;
  if (limit === undefined) return { review };
  // Measured on what the review carries now: an earlier cut that fits stays;
  // a recut starts from the uncut text inside cutReview.
  if (utf8Length(review.response.content) <= limit.bytes) return { review };
  return cutReview(review, limit.bytes, "size_threshold");
}
