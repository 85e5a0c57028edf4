/**
 * What a turn tells whoever watches it (the terminal, an embedding app):
 * the assistant's words, each call as it starts, and each raw result as the
 * tool returned it. The raw result is the uncapped one: the cap is a
 * delivery limit, not a display limit. Notices go to the `NoticeSink`.
 *
 * @module
 */

import type { AssistantMessage } from "../provider/provider.ts";
import type { ToolCall } from "../review/tool_call.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";

/** Optional callbacks; each is called synchronously and must not throw. */
export interface TurnObserver {
  /**
   * A piece of the answer to request `cycle` arrived; the pieces add up to
   * the text `assistant()` is then told (unless the request fails).
   */
  assistantText?(delta: string, cycle: number): void;
  /** The model answered request `cycle`. */
  assistant?(message: AssistantMessage, cycle: number): void;
  /** A call is about to run (not called for calls resolved without running). */
  toolCallStarted?(call: ToolCall): void;
  /**
   * A call's slot was written: the raw response before any cap. Also called
   * for calls answered without running (an unknown tool, `run = "skip"`).
   */
  toolCallResult?(call: ToolCall, response: ToolCallResponse): void;
}
