/**
 * The provider view of a conversation: the messages a model is
 * sent, rebuilt from the stream's events. Compactions are applied here and
 * only here: a `strip-responses` compaction swaps the listed responses for a
 * short marker in the view, while the stream keeps the original payload.
 * This is how a conversation killed by one oversized response is repaired
 * without a model call and without losing data.
 *
 * @module
 */

import type { ConversationMessage } from "../provider/provider.ts";
import type { ToolCall } from "../review/tool_call.ts";
import { ByteSize } from "../size/byte_size.ts";
import { utf8Length } from "../size/cap_text.ts";
import type { StreamEvent } from "./events.ts";

/** The compaction strategy that strips response payloads from the view. */
export const STRIP_RESPONSES = "strip-responses";

type ToolMessage = Extract<ConversationMessage, { role: "tool" }>;

/**
 * Converts stream events to provider messages: `turn_start` → user message;
 * `chat_response` and the `tool_call_request` events after it → one
 * assistant message with those tool calls; `tool_call_response` → tool
 * message. Other events add no message.
 *
 * A `strip-responses` compaction replaces the content of the responses
 * recorded before it whose ids it lists (and, when it carries `over_bytes`,
 * that are at least that large, so a reused call id does not strip an
 * unrelated small response) with
 * `[response removed by compaction: <size> — the original stays in storage]`.
 * Compactions of unknown strategies are ignored.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { providerView } from "./provider_view.ts";
 * const view = providerView([
 *   { type: "turn_start", turn_id: "t1", prompt: "list files", at: "2026-11-29T22:56:00Z" },
 *   { type: "chat_response", turn_id: "t1", cycle: 0, text: "", at: "2026-11-29T22:56:01Z" },
 *   { type: "tool_call_request", id: "call_1", name: "ls", arguments: {} },
 *   { type: "tool_call_response", id: "call_1", content: "x".repeat(3000), is_error: false },
 *   { type: "compaction", strategy: "strip-responses", response_ids: ["call_1"], at: "2026-11-30T00:00:00Z" },
 * ]);
 * assert.deepEqual(view[2], {
 *   role: "tool",
 *   id: "call_1",
 *   content: "[response removed by compaction: 2.9 KB — the original stays in storage]",
 *   isError: false,
 * });
 * ```
 *
 * @param events the conversation's events, in stream order
 * @returns the messages, oldest first
 */
export function providerView(events: readonly StreamEvent[]): ConversationMessage[] {
  const messages: ConversationMessage[] = [];
  /** The tool calls of the last message, while it is an assistant message. */
  let openCalls: ToolCall[] | undefined;
  /** Where each call id's responses sit in `messages`. */
  const responses = new Map<string, number[]>();
  const stripped = new Set<number>();

  for (const event of events) {
    switch (event.type) {
      case "turn_start":
        messages.push({ role: "user", content: event.prompt });
        openCalls = undefined;
        break;
      case "chat_response":
        openCalls = [];
        messages.push({ role: "assistant", text: event.text, toolCalls: openCalls });
        break;
      case "tool_call_request": {
        const call: ToolCall = { id: event.id, name: event.name, arguments: event.arguments };
        if (openCalls === undefined) {
          // A request without its chat_response still needs an assistant
          // message before its response, or providers reject the view.
          openCalls = [];
          messages.push({ role: "assistant", text: "", toolCalls: openCalls });
        }
        openCalls.push(call);
        break;
      }
      case "tool_call_response": {
        const at = messages.push({
          role: "tool",
          id: event.id,
          content: event.content,
          isError: event.is_error,
        }) - 1;
        responses.set(event.id, [...(responses.get(event.id) ?? []), at]);
        openCalls = undefined;
        break;
      }
      case "compaction":
        if (event.strategy !== STRIP_RESPONSES) break;
        for (const id of event.response_ids) {
          for (const at of responses.get(id) ?? []) {
            if (stripped.has(at)) continue; // keep the original size in the marker
            const message = messages[at] as ToolMessage;
            const bytes = utf8Length(message.content);
            if (event.over_bytes !== undefined && bytes < event.over_bytes) continue;
            messages[at] = { ...message, content: strippedMarker(bytes) };
            stripped.add(at);
          }
        }
        break;
      case "chat_request":
      case "turn_end":
        break;
    }
  }
  return messages;
}

function strippedMarker(bytes: number): string {
  return `[response removed by compaction: ${
    ByteSize.fromBytes(bytes).human()
  } — the original stays in storage]`;
}
