/**
 * The prompter interface: how the `resultPrompt` state asks a person what to
 * do with a result under `result = "ask"` or `"edit"`. The terminal
 * implementation lives in `src/terminal`; tests use a scripted one.
 *
 * @module
 */

import type { ToolCall } from "../review/tool_call.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";

/** The person's decision about one raw result. */
export type ResultDecision =
  | { readonly kind: "deliver" }
  | { readonly kind: "edit"; readonly content: string }
  | { readonly kind: "skip" };

/**
 * The person's decision about running a call under `run = "ask"` or
 * `"edit"`: run it as asked, run it with edited arguments, or skip it.
 */
export type RunDecision =
  | { readonly kind: "run" }
  | { readonly kind: "edit"; readonly arguments: Readonly<Record<string, unknown>> }
  | { readonly kind: "skip" };

/** Asks about results. Gets the raw, uncapped response (the cap is a delivery limit). */
export interface Prompter {
  /** `ask`: offers deliver / edit / skip. */
  ask(call: ToolCall, response: ToolCallResponse, signal: AbortSignal): Promise<ResultDecision>;
  /** `edit`: opens an editor on the raw response and returns the edited text. */
  edit(call: ToolCall, response: ToolCallResponse, signal: AbortSignal): Promise<ResultDecision>;
  /**
   * `run = "ask"` / `"edit"`: asks whether to run the call (and, for
   * `"edit"`, lets the person change its arguments). Optional: without it,
   * calls of such tools are not run and get an error response instead.
   */
  approveRun?(call: ToolCall, mode: "ask" | "edit", signal: AbortSignal): Promise<RunDecision>;
}
