/**
 * The provider interface: the model client a turn drives. spillway ships a
 * scripted provider (the embedded default); embedding applications bring
 * their own by implementing `complete`.
 *
 * @module
 */

import type { ToolCall } from "../review/tool_call.ts";

/** One message of the provider view of a conversation. */
export type ConversationMessage =
  | { readonly role: "user"; readonly content: string }
  | { readonly role: "assistant"; readonly text: string; readonly toolCalls: readonly ToolCall[] }
  | {
    readonly role: "tool";
    readonly id: string;
    readonly content: string;
    readonly isError: boolean;
  };

/** A tool as advertised to the model. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

/** What the turn sends the model. */
export interface ProviderRequest {
  /** The provider view: every message so far, compactions applied. */
  readonly messages: readonly ConversationMessage[];
  /** The tools the model may call. */
  readonly tools: readonly ToolSpec[];
  /** 0 for the first request of a turn, then 1, 2, … */
  readonly cycle: number;
  /** Aborted when the turn is cancelled. */
  readonly signal: AbortSignal;
}

/** The assistant's answer: text, and tool calls (none ends the turn). */
export interface AssistantMessage {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
}

/** A model client. A failed request rejects (e.g. `prompt is too long`). */
export interface Provider {
  complete(request: ProviderRequest): Promise<AssistantMessage>;
}
