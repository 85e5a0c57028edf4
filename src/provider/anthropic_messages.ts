/**
 * The provider view in the Anthropic Messages format: user and assistant
 * turns alternate; an assistant turn holds its text and one `tool_use` block
 * per call; the user turn after it opens with one `tool_result` block per
 * answer (`tool_use_id`, `is_error`), followed by whatever the user said
 * next. Images in a result go as image blocks, which this API takes inside
 * `tool_result`.
 *
 * @module
 */

import type Anthropic from "@anthropic-ai/sdk";
import { pairHistory } from "./paired_history.ts";
import type { ConversationMessage, ToolSpec } from "./provider.ts";
import { toolResultParts } from "./tool_result_parts.ts";

/** A Messages API message. */
export type AnthropicMessage = Anthropic.Messages.MessageParam;

/** A Messages API tool definition. */
export type AnthropicTool = Anthropic.Messages.Tool;

type Block = Anthropic.Messages.ContentBlockParam;
type ToolResultContent = Exclude<Anthropic.Messages.ToolResultBlockParam["content"], undefined>;
type ToolResultBlock = Exclude<ToolResultContent, string>[number];

/** Options of {@linkcode toAnthropicMessages}. */
export interface AnthropicMessagesOptions {
  /** Told when an image is sent as its placeholder line. Default: nobody. */
  readonly notice?: (text: string) => void;
}

/**
 * Maps the provider view to Messages API turns, after
 * {@linkcode pairHistory} has made it well formed. Consecutive messages of
 * one role become one turn (tool results first), as the API wants.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toAnthropicMessages } from "./anthropic_messages.ts";
 * const messages = toAnthropicMessages([
 *   { role: "user", content: "list files" },
 *   { role: "assistant", text: "", toolCalls: [{ id: "toolu_1", name: "ls", arguments: {} }] },
 *   { role: "tool", id: "toolu_1", content: "no such dir", isError: true },
 * ]);
 * assert.deepEqual(messages[2], {
 *   role: "user",
 *   content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "no such dir", is_error: true }],
 * });
 * ```
 */
export function toAnthropicMessages(
  messages: readonly ConversationMessage[],
  options: AnthropicMessagesOptions = {},
): AnthropicMessage[] {
  const turns: { role: "user" | "assistant"; content: Block[] }[] = [];
  const add = (role: "user" | "assistant", blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const message of pairHistory(messages)) {
    switch (message.role) {
      case "user":
        // The API refuses empty text blocks.
        add("user", [{ type: "text", text: message.content === "" ? "(empty)" : message.content }]);
        break;
      case "assistant":
        add("assistant", [
          ...(message.text === "" ? [] : [{ type: "text" as const, text: message.text }]),
          ...message.toolCalls.map((call) => ({
            type: "tool_use" as const,
            id: call.id,
            name: call.name,
            input: call.arguments,
          })),
        ]);
        break;
      case "tool":
        add("user", [{
          type: "tool_result",
          tool_use_id: message.id,
          content: resultContent(message, options),
          is_error: message.isError,
        }]);
        break;
    }
  }
  return turns;
}

/** The tools as Messages API tools (name, description, `input_schema`). */
export function toAnthropicTools(tools: readonly ToolSpec[]): AnthropicTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { type: "object" as const, ...tool.inputSchema },
  }));
}

function resultContent(
  message: Extract<ConversationMessage, { role: "tool" }>,
  options: AnthropicMessagesOptions,
): ToolResultContent {
  const parts = toolResultParts(message, {
    images: true,
    ...(options.notice === undefined ? {} : { notice: options.notice }),
  });
  const [first] = parts;
  if (parts.length === 1 && first?.type === "text") return first.text;
  return parts.flatMap((part): ToolResultBlock[] => {
    if (part.type === "text") return part.text === "" ? [] : [{ type: "text", text: part.text }];
    return [{
      type: "image",
      source: {
        type: "base64",
        media_type: part.mediaType as "image/png" | "image/jpeg" | "image/gif" | "image/webp",
        data: part.data,
      },
    }];
  });
}
