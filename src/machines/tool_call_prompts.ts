/**
 * The two prompts a `toolCall` may hold: asking whether to run a call
 * (`run = "ask"`/`"edit"`, in `execute`) and settling its raw result
 * (`result = "ask"`/`"edit"`, in `resultPrompt`). Both are raced against
 * cancellation, so Ctrl-C ends a call even when a prompter ignores its
 * signal, and both turn every failure into a review: a prompt never throws
 * out of a call.
 *
 * @module
 */

import { acceptedReview, replacedReview, type Review } from "../review/review.ts";
import type { ToolCall } from "../review/tool_call.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import { raceAbort } from "../service/race_abort.ts";
import type { Prompter } from "./prompter.ts";
import { CallCancellation } from "../service/call_cancellation.ts";
import {
  approvalFailedReview,
  cancellationText,
  cancelledReview,
  promptFailedReview,
  skippedCallReview,
  skippedResultReview,
} from "./synthesized_reviews.ts";
import { reasonText } from "../errors/reason_text.ts";
import type { ToolPolicy } from "./turn_dependencies.ts";

/** What a prompt needs. */
export interface PromptInput {
  /** The call asked about. */
  readonly call: ToolCall;
  /** `ask` offers choices, `edit` opens an editor. */
  readonly mode: "ask" | "edit";
  /** The tool's policy (its cancellation response). */
  readonly policy: ToolPolicy;
  /** Who asks. */
  readonly prompter: Prompter;
  /** The turn's cancellation. */
  readonly signal: AbortSignal;
}

/** Either the call to run (maybe with edited arguments) or the review that ends it unrun. */
export type Approval = { readonly call: ToolCall } | { readonly review: Review };

/**
 * Asks whether to run a call. `signal` is the actor's own (stopping the call
 * aborts the prompt), combined with the turn's.
 */
export async function approveRun(
  { input, signal }: { input: PromptInput; signal: AbortSignal },
): Promise<Approval> {
  const { call, mode, policy, prompter } = input;
  if (prompter.approveRun === undefined) {
    const reason = `tool ${call.name} needs approval (run = "${mode}") but the prompter cannot ask`;
    return { review: approvalFailedReview(call, reason) };
  }
  const cancel = AbortSignal.any([input.signal, signal]);
  try {
    // Rejects with the signal's reason on cancellation: the catch below answers it.
    const decision = await raceAbort(prompter.approveRun(call, mode, cancel), cancel);
    switch (decision.kind) {
      case "run":
        return { call };
      case "edit":
        return { call: { ...call, arguments: decision.arguments } };
      case "skip":
        return { review: skippedCallReview(call) };
    }
  } catch (error) {
    if (cancel.aborted) return { review: cancelledReview(call, interrupted(policy, cancel)) };
    return { review: approvalFailedReview(call, reasonText(error)) };
  }
}

/**
 * Lets the person settle a raw (uncapped) result: deliver it, replace it
 * with an edit, or skip it. Saving the editor unchanged delivers the offer
 * (its non-text content kept).
 */
export async function promptResult(
  { input, signal }: {
    input: PromptInput & { readonly offered: ToolCallResponse };
    signal: AbortSignal;
  },
): Promise<Review> {
  const { call, offered, mode, policy, prompter } = input;
  const cancel = AbortSignal.any([input.signal, signal]);
  try {
    const asked = mode === "ask"
      ? prompter.ask(call, offered, cancel)
      : prompter.edit(call, offered, cancel);
    const decision = await raceAbort(asked, cancel);
    switch (decision.kind) {
      case "deliver":
        return acceptedReview(call.name, offered);
      case "edit":
        if (decision.content === offered.content) return acceptedReview(call.name, offered);
        return replacedReview(call.name, {
          id: offered.id,
          content: decision.content,
          isError: offered.isError,
        });
      case "skip":
        return skippedResultReview(call);
    }
  } catch (error) {
    if (cancel.aborted) return cancelledReview(call, interrupted(policy, cancel));
    return promptFailedReview(call, reasonText(error));
  }
}

/** What a prompt interrupted by `cancel` records: the cause it was stopped for, if it says. */
function interrupted(policy: ToolPolicy, cancel: AbortSignal): string {
  return cancellationText(policy, CallCancellation.causeOf(cancel.reason));
}
