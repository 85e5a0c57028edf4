/**
 * The Anthropic Messages wire format, as the API documents it, for the fake
 * server: a streamed answer as named server-sent events (`message_start`,
 * one `content_block_start` / `…_delta` / `…_stop` run per block, with text
 * in `text_delta` pieces and each `tool_use` input split over several
 * `input_json_delta` pieces, a `ping`, `message_delta` with the stop reason
 * and output tokens, `message_stop`), and error bodies
 * (`{ "type": "error", "error": { type, message } }`).
 *
 * @module
 */

import type { FakeReply } from "./fake_model_server.ts";
import { splitText, type WireAnswer } from "./openai_wire.ts";

const event = (name: string, data: Record<string, unknown>) =>
  `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;

/**
 * The server-sent events of a streamed message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { anthropicEvents } from "./anthropic_wire.ts";
 * const events = anthropicEvents({ text: "hi", pieces: 1 });
 * assert.ok(events.at(-1)!.startsWith("event: message_stop\n"));
 * ```
 */
export function anthropicEvents(answer: WireAnswer): string[] {
  const pieces = answer.pieces ?? 3;
  const usage = answer.usage ?? { input: 12, output: 34 };
  const calls = answer.toolCalls ?? [];
  const events = [
    event("message_start", {
      message: {
        id: "msg_fake",
        type: "message",
        role: "assistant",
        model: "claude-fake",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 1,
        },
      },
    }),
  ];
  let index = 0;
  if (answer.text !== undefined) {
    events.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
    events.push(event("ping", {}));
    for (const piece of splitText(answer.text, pieces)) {
      events.push(
        event("content_block_delta", { index, delta: { type: "text_delta", text: piece } }),
      );
    }
    events.push(event("content_block_stop", { index }));
    index++;
  }
  for (const call of calls) {
    events.push(event("content_block_start", {
      index,
      content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
    }));
    const json = typeof call.arguments === "string"
      ? call.arguments
      : JSON.stringify(call.arguments);
    for (const piece of splitText(json, pieces)) {
      events.push(event("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: piece },
      }));
    }
    events.push(event("content_block_stop", { index }));
    index++;
  }
  if (answer.truncated) return events;
  events.push(event("message_delta", {
    delta: {
      stop_reason: answer.atOutputLimit ? "max_tokens" : calls.length > 0 ? "tool_use" : "end_turn",
      stop_sequence: null,
    },
    usage: { output_tokens: usage.output },
  }));
  events.push(event("message_stop", {}));
  return events;
}

/**
 * A streamed message as a reply.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { anthropicAnswer } from "./anthropic_wire.ts";
 * assert.ok("events" in anthropicAnswer({ text: "hi" }));
 * ```
 */
export function anthropicAnswer(answer: WireAnswer, options: { hold?: boolean } = {}): FakeReply {
  return { events: anthropicEvents(answer), ...(options.hold ? { hold: true } : {}) };
}

/**
 * An error reply in the API's format, with its real status code.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { anthropicError } from "./anthropic_wire.ts";
 * const reply = anthropicError(529, "overloaded_error", "Overloaded");
 * assert.ok("status" in reply && reply.status === 529);
 * ```
 */
export function anthropicError(
  status: number,
  type: string,
  message: string,
  headers?: Record<string, string>,
): FakeReply {
  return {
    status,
    body: { type: "error", error: { type, message }, request_id: "req_fake" },
    ...(headers === undefined ? {} : { headers }),
  };
}
