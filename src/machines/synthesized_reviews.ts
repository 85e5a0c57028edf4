/**
 * The responses the Host writes itself, in one place: a lost or failed call,
 * a cancellation, a skipped call or result, an unavailable tool, arguments
 * that are not a JSON object, a repeated call id. Their texts are
 * user-visible (the assistant reads them and people match on them), so they
 * are built here and nowhere else. They carry no tool config of their own:
 * the batch ceiling is what bounds them.
 *
 * @module
 */

import { acceptedReview, replacedReview, type Review } from "../review/review.ts";
import type { ExecutionOutcome } from "../service/executor.ts";
import type { CancellationCause } from "../service/call_cancellation.ts";
import type { ToolPolicy } from "./turn_dependencies.ts";
import { readCallArguments } from "../review/read_call_arguments.ts";
import type { ToolCall } from "../review/tool_call.ts";
import { ByteSize } from "../size/byte_size.ts";
import { utf8Length } from "../size/cap_text.ts";
import { controlCharacters, unicodeEscape } from "../text/control_characters.ts";

/** At most this many tool names are listed in an unavailable-tool response. */
export const MAX_LISTED_TOOLS = 20;

/**
 * At most this many characters of arguments that are not a JSON object are
 * quoted back to the model: enough to recognise the call, while arguments
 * cut at an output limit can be tens of kilobytes.
 */
export const MAX_QUOTED_ARGUMENT_CHARS = 200;

/**
 * What a quote escapes besides what `JSON.stringify` does: C0 controls, DEL,
 * C1 controls, line and paragraph separators, and bidi controls (which could
 * reorder the text around the quote wherever it is shown).
 */
const INVISIBLE = controlCharacters({ lineSeparators: true });

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

/** The call was cancelled: `text` is {@linkcode cancellationText}'s (or the tool's configured response). */
export function cancelledReview(call: ToolCall, text: string): Review {
  return errorReview(call, text);
}

/** What {@linkcode cancellationText} reads of a tool's policy. */
export type CancellationPolicy = Pick<
  ToolPolicy,
  "cancellationResponse" | "cancellationResponseIsDefault"
>;

/**
 * What a cancelled call is recorded (and delivered) with: the tool's
 * `cancellation_response` when the config sets one; else, when the
 * cancellation says who cancelled, {@linkcode causedCancellationText};
 * else the default `cancellation_response` ("The user cancelled this tool call.").
 */
export function cancellationText(
  policy: CancellationPolicy,
  cause: CancellationCause | undefined,
): string {
  return cause !== undefined && policy.cancellationResponseIsDefault === true
    ? causedCancellationText(cause)
    : policy.cancellationResponse;
}

/**
 * A cancellation in the words of its cause (exact; people and scripts match on them):
 *
 * - the client cancelled: `This tool call was cancelled by the client.`, or
 *   with its reason `This tool call was cancelled by the client: "Request timed out".`
 *   (quoted as a JSON string, at most {@linkcode MAX_QUOTED_ARGUMENT_CHARS} characters);
 * - the client went away: `This tool call was cancelled: the client disconnected (its session ended).`;
 * - the gateway shut down: `This tool call was cancelled: spillway serve is shutting down (terminated (SIGTERM)).`
 */
export function causedCancellationText(cause: CancellationCause): string {
  switch (cause.by) {
    case "client":
      return cause.reason === undefined || cause.reason === ""
        ? "This tool call was cancelled by the client."
        : `This tool call was cancelled by the client: ${quoted(cause.reason)}.`;
    case "disconnect":
      return "This tool call was cancelled: the client disconnected (its session ended).";
    case "shutdown":
      return `This tool call was cancelled: ${visible(cause.reason)}.`;
  }
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
 * most {@linkcode MAX_LISTED_TOOLS}, so the assistant can correct itself;
 * `note` (servers that do not answer yet, and why) follows, after `; `.
 */
export function unavailableToolReview(
  call: ToolCall,
  available: readonly string[],
  note?: string,
): Review {
  const listed = available.length > 0 && available.length <= MAX_LISTED_TOOLS
    ? ` (available tools: ${available.join(", ")})`
    : "";
  const noted = note === undefined || note === "" ? "" : `; ${note}`;
  return errorReview(call, `tool ${call.name} is not available${listed}${noted}`);
}

/**
 * The call's arguments are not a JSON object (`invalidArguments` is set): it
 * is not run. Quotes the start of what the model sent as a JSON string (one
 * line, control characters escaped, at most
 * {@linkcode MAX_QUOTED_ARGUMENT_CHARS} characters) and says what is wrong
 * with it, so the model can send the call again. When the answer stopped
 * at the model's output limit in these arguments (`outputLimit`), it says
 * that they were cut short, and what helps: shorter arguments, or a higher
 * limit.
 */
export function invalidArgumentsReview(call: ToolCall): Review {
  const text = call.invalidArguments ?? "";
  const { summary, detail } = readCallArguments(text).problem ??
    { summary: "not a JSON object", detail: "The provider could not read them" };
  const head = `the arguments of call ${call.id} to tool ${call.name} are ${summary}: ` +
    `${quoted(text)}\n${visible(detail)}. `;
  const limit = call.outputLimit;
  if (limit === undefined) {
    return errorReview(
      call,
      `${head}The call was not run: send it again with its arguments as one JSON object.`,
    );
  }
  return errorReview(
    call,
    `${head}The answer stopped at the model's output limit (${limit.stop}) in these ` +
      "arguments: they were cut short. The call was not run: send it again with shorter " +
      "arguments as one JSON object (a long text over several calls); if they cannot be " +
      `shorter, the limit must be raised: ${limit.raise}.`,
  );
}

/**
 * The start of `text` as a JSON string (which reads back as exactly that
 * start), and the size of the whole when that is not all of it.
 */
function quoted(text: string): string {
  // Whole code points: the first N of at most 2N UTF-16 units.
  const start = Array.from(text.slice(0, 2 * MAX_QUOTED_ARGUMENT_CHARS))
    .slice(0, MAX_QUOTED_ARGUMENT_CHARS).join("");
  const quote = visible(JSON.stringify(start));
  if (start.length === text.length) return quote;
  return `${quote}… (${ByteSize.fromBytes(utf8Length(text)).human()} in all)`;
}

/** `text` with {@linkcode INVISIBLE} characters as `\u202e`-style escapes. */
function visible(text: string): string {
  return text.replace(INVISIBLE, unicodeEscape);
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
 * cancelled ({@linkcode cancellationText}) or failed. An `executed`
 * outcome is accepted as it is.
 */
export function reviewOfEarlyEnd(
  call: ToolCall,
  policy: CancellationPolicy,
  outcome: ExecutionOutcome,
): Review {
  switch (outcome.kind) {
    case "lost":
      return lostReview(call, outcome.reason);
    case "cancelled":
      return cancelledReview(call, cancellationText(policy, outcome.cause));
    case "failed":
      return failedReview(call, outcome.reason);
    case "executed":
      return acceptedReview(call.name, outcome.response);
  }
}
