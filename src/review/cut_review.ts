/**
 * Cutting one review to a byte limit, shared by both caps: the cut always
 * starts from the text before any cut and uses the review's own truncation
 * strategy, so a response never carries two markers, its marker names the
 * original size, and both caps keep the same end(s) of it (or, under
 * `json`/`auto`, the same JSON prefix; a json cut that fell back to the head
 * says so in its notice). A spilled
 * response's cuts carry the reference line to its whole output. A cut of a
 * tool whose results must carry structured content is an error result (the
 * cut has none).
 *
 * @module
 */

import { cutText } from "../size/cut_text.ts";
import { droppedContentOf } from "./dropped_content.ts";
import { fullOutputReference } from "./full_output_reference.ts";
import type { NoticeCause, NoticeFact } from "./notice.ts";
import type { Review } from "./review.ts";
import { responseText } from "./tool_call_response.ts";

/**
 * Cuts `review` to `capBytes` from its uncut text, with its truncation
 * strategy. The result is a replaced review of the cut text alone: its
 * non-text content is dropped with the rest of the cut, and its notice says
 * what was dropped.
 */
export function cutReview(
  review: Review,
  capBytes: number,
  cause: NoticeCause,
): { review: Review; notice: NoticeFact } {
  const uncut = review.uncut ?? responseText(review.response);
  const { truncation } = review;
  const spilled = review.spilled ?? review.response.spilled;
  const reference = spilled === undefined ? undefined : fullOutputReference(spilled);
  const dropped = review.dropped ?? droppedContentOf(review.response);
  // Options are built only for a reference: a batch cut makes thousands of cuts.
  const options = reference === undefined ? truncation : { ...truncation, reference };
  const cut = cutText(uncut, capBytes, options);
  const { id } = review.response;
  const isError = review.response.isError || review.structured === true;
  const cutReview: Mutable<Review> = {
    status: "replaced",
    tool: review.tool,
    response: { id, content: cut.text, isError },
    uncut,
  };
  if (truncation !== undefined) cutReview.truncation = truncation;
  if (spilled !== undefined) cutReview.spilled = spilled;
  if (dropped !== undefined) cutReview.dropped = dropped;
  if (review.structured !== undefined) cutReview.structured = true;
  const notice: Mutable<NoticeFact> = {
    tool: review.tool,
    callId: id,
    originalBytes: cut.originalBytes,
    capBytes,
    cause,
  };
  if (cut.fallback !== undefined) notice.fallback = cut.fallback;
  if (dropped !== undefined) notice.dropped = dropped;
  return { review: cutReview, notice };
}

/** `T` with its fields writable, to set the optional ones only when present. */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };
