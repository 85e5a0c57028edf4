/**
 * The provider view of a conversation: the messages a model is sent,
 * rebuilt from the stream's events. Compactions are applied here and only
 * here, while the stream keeps the original payload: a `strip-responses`
 * compaction swaps the responses it lists for a short stub naming the tool
 * and the recorded size; a `cap` compaction cuts them to the byte limits it
 * carries, the way the caps cut new responses. This is how a conversation
 * killed by one oversized response is repaired without a model call and
 * without losing data.
 *
 * @module
 */

import type { ConversationMessage } from "../provider/provider.ts";
import type { ToolCall } from "../review/tool_call.ts";
import { ByteSize } from "../size/byte_size.ts";
import { utf8Length } from "../size/cap_text.ts";
import type { CompactionEvent, StreamEvent } from "./events.ts";
import { recut } from "./_recut.ts";
import { responseOfEvent } from "./tool_call_response_event.ts";

/** The compaction strategy that replaces responses with a stub in the view. */
export const STRIP_RESPONSES = "strip-responses";
/** The compaction strategy that cuts responses to byte limits in the view. */
export const CAP_RESPONSES = "cap";

/** One recorded tool response, and what the model is sent for it now. */
export interface ViewedResponse {
  /** Where its `tool_call_response` event is in the stream (0-based). */
  readonly eventIndex: number;
  /** The call id. */
  readonly id: string;
  /** The tool of the request with that id (`""` when no request was recorded). */
  readonly tool: string;
  /** Which assistant message's calls it answers (0-based); one batch of calls. */
  readonly batch: number;
  /** Whether it reports a failure. */
  readonly isError: boolean;
  /** UTF-8 bytes as recorded. */
  readonly recordedBytes: number;
  /** UTF-8 bytes the model is sent now. */
  readonly viewBytes: number;
  /** The compaction that last changed it in the view, if one did: its strategy and event index. */
  readonly compactedBy?: { readonly strategy: string; readonly eventIndex: number };
}

/** The provider view and, for each recorded response, what became of it. */
export interface ConversationView {
  /** The messages, oldest first. */
  readonly messages: ConversationMessage[];
  /** Every recorded tool response, in stream order. */
  readonly responses: ViewedResponse[];
}

type ToolMessage = Extract<ConversationMessage, { role: "tool" }>;

interface Slot {
  at: number;
  response: ViewedResponse;
  stripped: boolean;
}

/**
 * Converts stream events to provider messages: `turn_start` → user message;
 * `chat_response` and the `tool_call_request` events after it → one
 * assistant message with those tool calls; `tool_call_response` → tool
 * message (with its recorded blocks, when it has some). Other events add no
 * message.
 *
 * A compaction applies to the responses recorded before it whose ids it
 * lists. `strip-responses` (when it carries `over_bytes`, only responses at
 * least that large in the view, so a reused call id does not strip an
 * unrelated small response) replaces the content with
 * `[response removed by compaction: <tool>, <size> — the original stays in storage]`;
 * a stripped response stays stripped. `cap` cuts each listed response to
 * the matching entry of `cap_bytes` (marker included; a response already
 * cut keeps one marker naming its original size). Compactions of unknown
 * strategies are ignored.
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
 *   content: "[response removed by compaction: ls, 2.9 KB — the original stays in storage]",
 *   isError: false,
 * });
 * ```
 *
 * @param events the conversation's events, in stream order
 * @returns the messages, oldest first
 */
export function providerView(events: readonly StreamEvent[]): ConversationMessage[] {
  return conversationView(events).messages;
}

/**
 * The provider view (see {@linkcode providerView}) together with what
 * became of each recorded response: its recorded and current size, and the
 * compaction that changed it. `conversation ls/show/compact` read this.
 */
export function conversationView(events: readonly StreamEvent[]): ConversationView {
  const messages: ConversationMessage[] = [];
  /** The tool calls of the last message, while it is an assistant message. */
  let openCalls: ToolCall[] | undefined;
  let batch = -1;
  const tools = new Map<string, string>();
  /** Each call id's responses so far. */
  const slots = new Map<string, Slot[]>();
  const ordered: Slot[] = [];

  const openAssistant = (text: string) => {
    openCalls = [];
    batch++;
    messages.push({ role: "assistant", text, toolCalls: openCalls });
  };

  events.forEach((event, eventIndex) => {
    switch (event.type) {
      case "turn_start":
        messages.push({ role: "user", content: event.prompt });
        openCalls = undefined;
        break;
      case "chat_response":
        openAssistant(event.text);
        break;
      case "tool_call_request":
        // A request without its chat_response still needs an assistant
        // message before its response, or providers reject the view.
        if (openCalls === undefined) openAssistant("");
        openCalls?.push({
          id: event.id,
          name: event.name,
          arguments: event.arguments,
          ...(event.invalid_arguments === undefined
            ? {}
            : { invalidArguments: event.invalid_arguments }),
        });
        tools.set(event.id, event.name);
        break;
      case "tool_call_response": {
        const { blocks } = responseOfEvent(event);
        const at = messages.push({
          role: "tool",
          id: event.id,
          content: event.content,
          isError: event.is_error,
          ...(blocks === undefined ? {} : { blocks }),
        }) - 1;
        const bytes = utf8Length(event.content);
        const slot: Slot = {
          at,
          stripped: false,
          response: {
            eventIndex,
            id: event.id,
            tool: tools.get(event.id) ?? "",
            batch: Math.max(batch, 0),
            isError: event.is_error,
            recordedBytes: bytes,
            viewBytes: bytes,
          },
        };
        slots.set(event.id, [...(slots.get(event.id) ?? []), slot]);
        ordered.push(slot);
        openCalls = undefined;
        break;
      }
      case "compaction":
        applyCompaction(event, eventIndex, slots, messages);
        break;
      case "chat_request":
      case "turn_end":
        break;
    }
  });
  return { messages, responses: ordered.map((slot) => slot.response) };
}

function applyCompaction(
  event: CompactionEvent,
  eventIndex: number,
  slots: ReadonlyMap<string, Slot[]>,
  messages: ConversationMessage[],
): void {
  if (event.strategy !== STRIP_RESPONSES && event.strategy !== CAP_RESPONSES) return;
  if (!Array.isArray(event.response_ids)) return; // a damaged event changes nothing
  event.response_ids.forEach((id, k) => {
    for (const slot of slots.get(id) ?? []) {
      if (slot.stripped) continue; // a stub keeps naming the recorded size
      const message = messages[slot.at] as ToolMessage;
      let content: string;
      if (event.strategy === STRIP_RESPONSES) {
        if (event.over_bytes !== undefined && slot.response.viewBytes < event.over_bytes) continue;
        content = stub(slot.response.tool, slot.response.recordedBytes);
        slot.stripped = true;
      } else {
        const cap = event.cap_bytes?.[k];
        if (cap === undefined || slot.response.viewBytes <= cap) continue;
        content = recut(message.content, cap);
      }
      // A compacted response is its new text alone: its blocks go with the old text.
      const { blocks: _dropped, ...rest } = message;
      messages[slot.at] = { ...rest, content };
      slot.response = {
        ...slot.response,
        viewBytes: utf8Length(content),
        compactedBy: { strategy: event.strategy, eventIndex },
      };
    }
  });
}

/** What the model is sent in place of a stripped response. */
function stub(tool: string, bytes: number): string {
  const size = ByteSize.fromBytes(bytes).human();
  return `[response removed by compaction: ${
    tool === "" ? "" : `${tool}, `
  }${size} — the original stays in storage]`;
}
