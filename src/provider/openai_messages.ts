/**
 * The provider view in the OpenAI chat completions format: the user's
 * prompts as `user` messages, each assistant message with its `tool_calls`
 * (arguments as JSON text), and each recorded response as a `tool` message
 * carrying the `tool_call_id` it answers. Tool results in this API are text
 * only: non-text blocks go as their placeholder lines.
 *
 * @module
 */

import type OpenAI from "openai";
import { pairHistory } from "./paired_history.ts";
import type { ConversationMessage, ToolSpec } from "./provider.ts";
import { partsText, toolResultParts } from "./tool_result_parts.ts";

/** A chat completions message. */
export type OpenAiMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** A chat completions tool definition. */
export type OpenAiTool = OpenAI.Chat.Completions.ChatCompletionTool;

/**
 * Maps the provider view to chat completions messages, one for one after
 * {@linkcode pairHistory} has made it well formed. A recorded response's
 * content is sent exactly as recorded (capped, marker included).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toOpenAiMessages } from "./openai_messages.ts";
 * const messages = toOpenAiMessages([
 *   { role: "user", content: "list files" },
 *   { role: "assistant", text: "", toolCalls: [{ id: "call_1", name: "ls", arguments: { path: "." } }] },
 *   { role: "tool", id: "call_1", content: "a.txt", isError: false },
 * ]);
 * assert.deepEqual(messages[1], {
 *   role: "assistant",
 *   content: null,
 *   tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: '{"path":"."}' } }],
 * });
 * assert.deepEqual(messages[2], { role: "tool", tool_call_id: "call_1", content: "a.txt" });
 * ```
 */
export function toOpenAiMessages(messages: readonly ConversationMessage[]): OpenAiMessage[] {
  return pairHistory(messages).map((message): OpenAiMessage => {
    switch (message.role) {
      case "user":
        return { role: "user", content: message.content };
      case "assistant":
        if (message.toolCalls.length === 0) return { role: "assistant", content: message.text };
        return {
          role: "assistant",
          content: message.text === "" ? null : message.text,
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: "function" as const,
            function: { name: call.name, arguments: JSON.stringify(call.arguments) },
          })),
        };
      case "tool":
        return {
          role: "tool",
          tool_call_id: message.id,
          content: partsText(toolResultParts(message)),
        };
    }
  });
}

/** The tools as chat completions `function` tools (name, description, JSON Schema). */
export function toOpenAiTools(tools: readonly ToolSpec[]): OpenAiTool[] {
  return tools.map((tool) => ({
    type: "function" as const,
    function: {
      name: tool.name,
      description: tool.description,
      parameters: { ...tool.inputSchema },
    },
  }));
}
