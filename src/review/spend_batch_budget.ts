/**
 * The batch ceiling, spent largest first: find the highest level L such that
 * Σ min(size_i, L) fits the budget; every response larger than L is cut to
 * at most L bytes (marker included) and the rest stay whole, so one
 * oversized response never starves its siblings. Each cut keeps the end(s)
 * its own tool's truncation strategy names. The sizes are those of the
 * responses' parts: each text, and each structured content (its compact
 * JSON) that its text does not mirror, so a caller that receives both gets
 * no more than the budget, and a mirror is counted once.
 *
 * @module
 */

import { cutReview } from "./cut_review.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "./max_tool_response_batch_bytes.ts";
import type { NoticeFact } from "./notice.ts";
import type { Review } from "./review.ts";
import { isOver, responseBytes, structuredBytes } from "./tool_call_response.ts";

/**
 * The highest level L with Σ min(size_i, L) ≤ budget, or `Infinity` when
 * everything fits. Water-filling over the sizes sorted ascending.
 */
export function waterLevel(sizes: readonly number[], budget: number): number {
  // The usual batch fits whole: one sum says so, without sorting.
  let total = 0;
  for (const size of sizes) total += size;
  if (total <= budget) return Infinity;
  const sorted = Float64Array.from(sizes).sort();
  let remaining = budget;
  for (let i = 0; i < sorted.length; i++) {
    const size = sorted[i] as number;
    const share = Math.floor(remaining / (sorted.length - i));
    if (size > share) return share;
    remaining -= size;
  }
  return Infinity;
}

/**
 * Spends `budget` bytes across a batch of reviews, largest first. Responses
 * already cut by their threshold are re-cut from their uncut text, each with
 * its review's truncation strategy. The total of the results never exceeds
 * the budget.
 *
 * @param reviews the batch in call-index order (pre-resolved responses included)
 * @param budget the byte budget; defaults to {@linkcode MAX_TOOL_RESPONSE_BATCH_BYTES}
 * @returns the reviews in the same order, and one notice per cut (cause `batch ceiling`)
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { spendBatchBudget } from "./spend_batch_budget.ts";
 * import { acceptedReview } from "./review.ts";
 * const big = acceptedReview("big", { id: "1", content: "x".repeat(3_000_000), isError: false });
 * const small = acceptedReview("small", { id: "2", content: "ok", isError: false });
 * const { reviews, notices } = spendBatchBudget([big, small]);
 * assert.equal(reviews[1], small);
 * assert.equal(notices.length, 1);
 * assert.equal(notices[0]?.cause, "batch ceiling");
 * ```
 */
export function spendBatchBudget(
  reviews: readonly Review[],
  budget: number = MAX_TOOL_RESPONSE_BATCH_BYTES,
): { reviews: Review[]; notices: NoticeFact[] } {
  if (!Number.isSafeInteger(budget) || budget < 0) {
    throw new RangeError(`budget must be a non-negative whole number, got \`${budget}\``);
  }
  const sizes: number[] = [];
  for (const { response } of reviews) {
    sizes.push(responseBytes(response));
    const structured = structuredBytes(response);
    if (structured !== undefined) sizes.push(structured);
  }
  const level = waterLevel(sizes, budget);
  if (level === Infinity) return { reviews: [...reviews], notices: [] };
  const notices: NoticeFact[] = [];
  const spent = reviews.map((review) => {
    if (!isOver(review.response, level)) return review;
    const cut = cutReview(review, level, "batch ceiling");
    notices.push(cut.notice);
    return cut.review;
  });
  return { reviews: spent, notices };
}
