/**
 * Cutting one review to a byte limit, shared by both caps: the cut always
 * starts from the response before any cut and uses the review's own
 * truncation strategy, so a response never carries two markers, its marker
 * names the original size, and both caps keep the same end(s) of it (or,
 * under `json`/`auto`, the same JSON prefix; a json cut that fell back to
 * the head says so in its notice). A spilled response's cuts carry the
 * reference line to its whole output.
 *
 * A response has up to two parts the caps measure, each against the same
 * limit: its text, and its structured content (compact JSON) unless the
 * text mirrors it. A part over the limit is cut; a part under it stays
 * whole. Structured content is cut as JSON without notes, and for a tool
 * with an output schema kept only when the schema accepts the cut (else it
 * is dropped, and the result becomes an error result whose text says
 * why). A mirror stays one: its text is the cut value's JSON and the marker.
 *
 * @module
 */

import { capText, truncationMarker, utf8Length } from "../size/cap_text.ts";
import { cutText } from "../size/cut_text.ts";
import type { JsonFallback } from "../size/json_fallback.ts";
import type { TextWindow } from "../size/text_window.ts";
import type { StructuredContentInfo } from "./content_block.ts";
import { cutStructuredContent } from "./cut_structured_content.ts";
import { type DroppedContent, droppedContentOf } from "./dropped_content.ts";
import { fullOutputReference } from "./full_output_reference.ts";
import type { NoticeCause, NoticeFact } from "./notice.ts";
import type { Review } from "./review.ts";
import { responseText, type ToolCallResponse } from "./tool_call_response.ts";

/**
 * The line an error result's text ends with when a cut dropped the tool's
 * structured content because no cut of it satisfies the output schema (no
 * newline): `... [structured content dropped: {reason}]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { structuredDroppedLine } from "./cut_review.ts";
 * assert.equal(
 *   structuredDroppedLine("no cut of it fits in 1.0 KB"),
 *   "... [structured content dropped: no cut of it fits in 1.0 KB]",
 * );
 * ```
 */
export function structuredDroppedLine(reason: string): string {
  return `... [structured content dropped: ${reason}]`;
}

/**
 * Cuts `review` to `capBytes` from its uncut response, with its truncation
 * strategy. The result is a replaced review of the cut text (its non-text
 * blocks are dropped with the rest of the cut) and the cut structured
 * content, if one is kept; its notice says what was dropped.
 */
export function cutReview(
  review: Review,
  capBytes: number,
  cause: NoticeCause,
): { review: Review; notice: NoticeFact } {
  const { response, truncation, outputSchema } = review;
  const uncut = review.uncut ?? responseText(response);
  const original = review.uncut === undefined ? response.structuredContent : review.uncutStructured;
  const uncutIsError = review.uncutIsError ?? response.isError;
  const spilled = review.spilled ?? response.spilled;
  const reference = spilled === undefined ? undefined : fullOutputReference(spilled);
  const textBytes = typeof uncut === "string" ? utf8Length(uncut) : uncut.bytes;
  const mirrored = original?.mirrored === true && original.value !== undefined;
  // The marker and reference lines, which a mirror's JSON leaves room for (a mirror's only).
  const markerPart = mirrored
    ? "\n" + truncationMarker(textBytes, capBytes) +
      (reference === undefined ? "" : "\n" + reference)
    : "";

  let kept: { structured: StructuredContentInfo; json: string; cut: boolean } | undefined;
  let droppedReason: string | undefined;
  // A value not at hand (a response read back from the stream) cannot be delivered again.
  if (original?.value !== undefined) {
    if (!mirrored && original.bytes <= capBytes) {
      kept = { structured: original, json: "", cut: false };
    } else {
      const budget = mirrored ? capBytes - utf8Length(markerPart) : capBytes;
      const cut = cutStructuredContent(original, budget, outputSchema);
      if (cut.kind === "kept") {
        const structured = mirrored
          ? { ...cut.structured, mirrored: true as const }
          : cut.structured;
        kept = { structured, json: cut.json, cut: cut.structured !== original };
      } else {
        droppedReason = cut.reason;
      }
    }
  }
  // Without structured content, a tool with an output schema answers with an error.
  const isError = uncutIsError || (outputSchema !== undefined && kept === undefined);
  const why = outputSchema === undefined || droppedReason === undefined
    ? undefined
    : structuredDroppedLine(droppedReason);

  let text: string;
  let fallback: JsonFallback | undefined;
  if (mirrored && kept !== undefined) {
    text = kept.json + markerPart;
  } else if (textBytes > capBytes) {
    const lines = [reference, why].filter((line) => line !== undefined).join("\n");
    const cut = cutText(uncut, capBytes, { ...truncation, reference: lines || undefined });
    text = cut.text;
    fallback = cut.fallback;
  } else {
    text = wholeText(uncut, why, capBytes);
  }

  const { id } = response;
  const cutResponse: Mutable<ToolCallResponse> = { id, content: text, isError };
  if (kept !== undefined) cutResponse.structuredContent = kept.structured;
  const dropped = droppedOf(review, original !== undefined && kept === undefined);
  const cutReview: Mutable<Review> = {
    status: "replaced",
    tool: review.tool,
    response: cutResponse,
    uncut,
    uncutIsError,
  };
  if (original !== undefined) cutReview.uncutStructured = original;
  if (truncation !== undefined) cutReview.truncation = truncation;
  if (spilled !== undefined) cutReview.spilled = spilled;
  if (dropped !== undefined) cutReview.dropped = dropped;
  if (outputSchema !== undefined) cutReview.outputSchema = outputSchema;
  const notice: Mutable<NoticeFact> = {
    tool: review.tool,
    callId: id,
    originalBytes: textBytes,
    capBytes: Math.min(capBytes, textBytes),
    cause,
  };
  if (fallback !== undefined) notice.fallback = fallback;
  if (kept?.cut === true && !mirrored && original !== undefined) {
    notice.structured = { originalBytes: original.bytes, capBytes };
  }
  if (dropped !== undefined) notice.dropped = dropped;
  return { review: cutReview, notice };
}

/**
 * The text of a response whose text fits: as it is, and when its structured
 * content was dropped, the line saying why after it (the text cut to make
 * room, should it not fit beside it).
 */
function wholeText(uncut: string | TextWindow, why: string | undefined, capBytes: number): string {
  const text = typeof uncut === "string" ? uncut : capText(uncut, capBytes).text;
  if (why === undefined) return text;
  const room = capBytes - utf8Length("\n" + why);
  const fits = utf8Length(text) <= room;
  return (fits ? text : capText(text, Math.max(0, room)).text) + "\n" + why;
}

/**
 * What the cut drops: the non-text blocks of the original (a cut result is
 * its text alone), and its structured content when none is kept.
 */
function droppedOf(review: Review, structuredDropped: boolean): DroppedContent | undefined {
  // A recut starts from the original's blocks, which the earlier cut noted.
  const { structuredContent: _counted, ...textAndBlocks } = review.response;
  const blocks = review.dropped?.blocks ?? droppedContentOf(textAndBlocks)?.blocks ?? {};
  const any = Object.values(blocks).some((count) => (count ?? 0) > 0);
  return any || structuredDropped ? { blocks, structuredContent: structuredDropped } : undefined;
}

/** `T` with its fields writable, to set the optional ones only when present. */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };
