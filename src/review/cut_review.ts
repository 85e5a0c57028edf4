/**
 * Cutting one review to a byte limit, shared by both caps: the cut always
 * starts from the text before any cut, so a response never carries two
 * markers and its marker names the original size.
 *
 * @module
 */

import { capText } from "../size/cap_text.ts";
import type { NoticeCause, NoticeFact } from "./notice.ts";
import type { Review } from "./review.ts";

/**
 * Cuts `review` to `capBytes` from its uncut text. The result is a replaced
 * review whose non-text content is dropped with the tail.
 */
export function cutReview(
  review: Review,
  capBytes: number,
  cause: NoticeCause,
): { review: Review; notice: NoticeFact } {
  const uncut = review.uncut ?? review.response.content;
  const cut = capText(uncut, capBytes);
  const { id, isError } = review.response;
  return {
    review: {
      status: "replaced",
      tool: review.tool,
      response: { id, content: cut.text, isError },
      uncut,
    },
    notice: { tool: review.tool, callId: id, originalBytes: cut.originalBytes, capBytes, cause },
  };
}
