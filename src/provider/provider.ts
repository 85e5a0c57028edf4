/**
 * The provider interface: the model client a turn drives. spillway ships a
 * scripted provider (the embedded default) and clients for the OpenAI chat
 * completions and Anthropic Messages APIs; embedding applications may bring
 * their own by implementing `complete`.
 *
 * @module
 */

import type { ToolCall } from "../review/tool_call.ts";
import type { ContentBlock } from "../review/content_block.ts";

/** One message of the provider view of a conversation. */
export type ConversationMessage = UserMessage | AssistantTurnMessage | ToolMessage;

/** The user's prompt. */
export interface UserMessage {
  /** Always `"user"`. */
  readonly role: "user";
  /** The prompt text. */
  readonly content: string;
}

/** What the assistant said, and the calls it asked for. */
export interface AssistantTurnMessage {
  /** Always `"assistant"`. */
  readonly role: "assistant";
  /** The assistant's text. */
  readonly text: string;
  /** The tool calls it asked for (possibly none). */
  readonly toolCalls: readonly ToolCall[];
}

/** A recorded tool response, exactly as delivered. */
export interface ToolMessage {
  /** Always `"tool"`. */
  readonly role: "tool";
  /** The call id it answers. */
  readonly id: string;
  /**
   * The recorded content (capped): the text a text-only model reads, a
   * placeholder line standing for each non-text block.
   */
  readonly content: string;
  /** Whether it reports a failure. */
  readonly isError: boolean;
  /**
   * The recorded blocks of a result delivered uncut with non-text content,
   * in order. A provider whose API takes some kind (images) sends those
   * blocks as themselves when their payload is at hand (`data`), and every
   * other block as its placeholder line, as in `content`.
   */
  readonly blocks?: readonly ContentBlock[];
}

/** A tool as advertised to the model. */
export interface ToolSpec {
  /** The name the model calls it by. */
  readonly name: string;
  /** What the model reads about it. */
  readonly description: string;
  /** The JSON Schema of its arguments. */
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
  /**
   * Told each piece of the assistant's text as it arrives, in order; the
   * pieces add up to the answer's `text`. A provider that does not stream
   * may call it once with the whole text, or not at all. Default: nobody.
   */
  readonly onText?: (delta: string) => void;
}

/** What one request cost, as the API counted it. */
export interface TokenUsage {
  /** Tokens of the request (prompt, history and tool definitions). */
  readonly inputTokens: number;
  /** Tokens of the answer. */
  readonly outputTokens: number;
}

/** The assistant's answer: text, and tool calls (none ends the turn). */
export interface AssistantMessage {
  /** The assistant's text. */
  readonly text: string;
  /** The tool calls it asks for; none ends the turn. */
  readonly toolCalls: readonly ToolCall[];
  /** Tokens counted for the request, when the API reports them. */
  readonly usage?: TokenUsage;
}

/** A model client. A failed request rejects (e.g. `prompt is too long`). */
export interface Provider {
  /**
   * The model id recorded with each request (`"openai/gpt-4.1-mini"`).
   * Default: none recorded.
   */
  readonly model?: string;
  /**
   * Whether it sends images in tool results as images: the runtime then
   * puts the payloads of the view's recorded images (`MediaBlock.data`)
   * back before each request. Default false: every non-text block goes as
   * its placeholder line, which `content` already holds.
   */
  readonly sendsImages?: boolean;
  /** Sends one request and resolves with the assistant's answer. */
  complete(request: ProviderRequest): Promise<AssistantMessage>;
}
