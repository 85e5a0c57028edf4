/**
 * The responses the Host writes itself, in one place: a lost or failed call,
 * a cancellation, a skipped call or result, an unavailable tool, a repeated
 * call id. Their texts are user-visible (the assistant reads them and people
 * match on them), so they are built here and nowhere else. They carry no
 * tool config of their own: the batch ceiling is what bounds them.
 *
 * @module
 */

import { acceptedReview, replacedReview, type Review } from "../review/review.ts";
import type { ExecutionOutcome } from "../service/executor.ts";
import type { ToolCall } from "../review/tool_call.ts";

/** At most this many tool names are listed in an unavailable-tool response. */
export const MAX_LISTED_TOOLS = 20;

function errorReview(call: ToolCall, content: string): Review {
  return replacedReview(call.name, { id: call.id, content, isError: true });
}

/** The tool source died mid-call. */
export function lostReview(call: ToolCall, reason: string): Review {
  return errorReview(call, `tool call lost: ${reason}`);
}

/** The runtime could not run the call at all. */
export function failedReview(call: ToolCall, reason: string): Review {
  return errorReview(call, `tool call failed: ${reason}`);
}

/** The call was cancelled: the tool's configured cancellation response. */
export function cancelledReview(call: ToolCall, cancellationResponse: string): Review {
  return errorReview(call, cancellationResponse);
}

/** The person chose "skip" at the result prompt. */
export function skippedResultReview(call: ToolCall): Review {
  return errorReview(call, "The user skipped this tool call's result.");
}

/** The tool's config says `result = "skip"`: it ran, its result is not shared. */
export function withheldResultReview(call: ToolCall): Review {
  return replacedReview(call.name, {
    id: call.id,
    content: 'The tool ran; its result is not shared with the assistant (result = "skip").',
    isError: false,
  });
}

/** The call was not run: `run = "skip"`, or the person declined it. */
export function skippedCallReview(call: ToolCall): Review {
  return errorReview(call, "The user skipped this tool call.");
}

/** The result prompt failed (the terminal went away, the editor crashed). */
export function promptFailedReview(call: ToolCall, reason: string): Review {
  return errorReview(call, `the result prompt failed: ${reason}`);
}

/** Asking whether to run the call failed, or nobody can be asked. */
export function approvalFailedReview(call: ToolCall, reason: string): Review {
  return errorReview(call, `the run prompt failed: ${reason}`);
}

/**
 * No tool of that name exists. Lists the available tools when there are at
 * most {@linkcode MAX_LISTED_TOOLS}, so the assistant can correct itself.
 */
export function unavailableToolReview(call: ToolCall, available: readonly string[]): Review {
  const listed = available.length > 0 && available.length <= MAX_LISTED_TOOLS
    ? ` (available tools: ${available.join(", ")})`
    : "";
  return errorReview(call, `tool ${call.name} is not available${listed}`);
}

/** A second call of the same message reuses an id: it is not run. */
export function repeatedCallReview(call: ToolCall): Review {
  return errorReview(call, `tool call id ${call.id} repeats an earlier call of the same message`);
}

/** The failure a parked call is released with when its batch was not recorded. */
export function notRecordedMessage(callId: string, error: string): string {
  return `the result of call ${callId} was not recorded: ${error}`;
}

/**
 * The review of a call that ended before the Host saw a result: lost,
 * cancelled (the tool's `cancellation_response`) or failed. An `executed`
 * outcome is accepted as it is.
 */
export function reviewOfEarlyEnd(
  call: ToolCall,
  cancellationResponse: string,
  outcome: ExecutionOutcome,
): Review {
  switch (outcome.kind) {
    case "lost":
      return lostReview(call, outcome.reason);
    case "cancelled":
      return cancelledReview(call, cancellationResponse);
    case "failed":
      return failedReview(call, outcome.reason);
    case "executed":
      return acceptedReview(call.name, outcome.response);
  }
}
