/**
 * A review is what the Host settled on for one call: the response to record
 * and deliver, and whether the Host replaced the content it was offered
 * (a user edit, a cap, a synthesized response). A cut review keeps the text
 * from before any cut, so that a later cut (the batch ceiling) starts from it
 * again: one marker, naming the original size.
 *
 * @module
 */

import type { TextWindow } from "../size/text_window.ts";
import type { Truncation } from "../size/truncation.ts";
import type { StructuredContentInfo } from "./content_block.ts";
import type { DroppedContent } from "./dropped_content.ts";
import type { SpilledOutput } from "./full_output_reference.ts";
import type { OutputSchema } from "./output_schema.ts";
import type { ToolCallResponse } from "./tool_call_response.ts";

/** `accepted`: the offered content as is. `replaced`: the Host changed it. */
export type ReviewStatus = "accepted" | "replaced";

/** What the Host settled on for one call. */
export interface Review {
  /** `accepted` when the response is the tool's own, `replaced` otherwise. */
  readonly status: ReviewStatus;
  /** The tool name (for notices and thresholds). */
  readonly tool: string;
  /** The response to record and deliver. */
  readonly response: ToolCallResponse;
  /**
   * Present once a cap has cut `response.content`: the text before any cut.
   * Later cuts start from it, and markers name its size.
   */
  readonly uncut?: string | TextWindow;
  /**
   * Present once a cap has cut a response that carried structured content:
   * that content before any cut (its value in memory), which later cuts
   * start from too.
   */
  readonly uncutStructured?: StructuredContentInfo;
  /**
   * Present once a cap has cut the response: its error flag before any cut
   * (a cut whose structured content is dropped becomes an error result;
   * a later cut decides again).
   */
  readonly uncutIsError?: boolean;
  /**
   * How a cap cuts this response: its tool's `truncation`, set at the phase
   * end so that the batch ceiling cuts with it too. The head when absent
   * (responses the Host wrote itself before any tool ran).
   */
  readonly truncation?: Truncation;
  /**
   * Present once a cap has cut a response that had non-text content: what
   * the cut dropped, so that a later cut's notice names it too.
   */
  readonly dropped?: DroppedContent;
  /**
   * Present once a cap has cut a spilled response: where its whole output is.
   * Later cuts carry the same reference line after their marker.
   */
  readonly spilled?: SpilledOutput;
  /**
   * Set at the phase end for a tool whose results must carry structured
   * content conforming to this schema (`spillway serve` lists the tool's
   * output schema, and MCP requires a result that is not an error to carry
   * `structuredContent` that conforms to it). A cut keeps a cut structured
   * value only when the schema accepts it; a response without one (edited,
   * or cut with no valid cut) is recorded and delivered as an error result.
   */
  readonly outputSchema?: OutputSchema;
}

/** The offered response, unchanged. */
export function acceptedReview(tool: string, response: ToolCallResponse): Review {
  return { status: "accepted", tool, response };
}

/** A response the Host wrote itself or changed (edit, synthesized, cut). */
export function replacedReview(tool: string, response: ToolCallResponse): Review {
  return { status: "replaced", tool, response };
}
