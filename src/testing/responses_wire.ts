/**
 * The OpenAI Responses wire format (`POST /v1/responses`, streamed), as
 * Codex reads it, for the fake server: `response.created`, one
 * `response.output_item.done` per output item (an assistant message, or a
 * `function_call` whose `namespace` names the MCP server a tool belongs
 * to), then `response.completed` with the usage.
 *
 * @module
 */

import type { FakeReply } from "./fake_model_server.ts";
import type { WireAnswer, WireToolCall } from "./openai_wire.ts";

/** A call of a namespaced tool (Codex lists an MCP server's tools as namespace `mcp__NAME`). */
export interface ResponsesToolCall extends WireToolCall {
  /** The tool's namespace. Default: none. */
  readonly namespace?: string;
}

/** What the fake model answers, on the Responses API. */
export interface ResponsesAnswer extends Omit<WireAnswer, "toolCalls"> {
  /** Tool calls, one output item each. Default none. */
  readonly toolCalls?: readonly ResponsesToolCall[];
}

const event = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/**
 * The server-sent events of a streamed response.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { responsesEvents } from "./responses_wire.ts";
 * const events = responsesEvents({
 *   toolCalls: [{ id: "c1", name: "big", namespace: "mcp__spillway", arguments: {} }],
 * });
 * assert.ok(events[1]!.includes('"namespace":"mcp__spillway"'));
 * assert.ok(events.at(-1)!.startsWith("event: response.completed\n"));
 * ```
 */
export function responsesEvents(answer: ResponsesAnswer): string[] {
  const usage = answer.usage ?? { input: 12, output: 34 };
  const items: Record<string, unknown>[] = [];
  if (answer.text !== undefined) {
    items.push({
      type: "message",
      id: "msg_fake",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: answer.text, annotations: [] }],
    });
  }
  for (const call of answer.toolCalls ?? []) {
    items.push({
      type: "function_call",
      id: `fc_${call.id}`,
      call_id: call.id,
      name: call.name,
      ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
      arguments: typeof call.arguments === "string"
        ? call.arguments
        : JSON.stringify(call.arguments),
      status: "completed",
    });
  }
  const events = [event("response.created", { response: { id: "resp_fake" } })];
  items.forEach((item, index) =>
    events.push(event("response.output_item.done", { output_index: index, item }))
  );
  if (answer.truncated) return events;
  events.push(event("response.completed", {
    response: {
      id: "resp_fake",
      usage: {
        input_tokens: usage.input,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: usage.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.input + usage.output,
      },
    },
  }));
  return events;
}

/**
 * A streamed response as a reply.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { responsesAnswer } from "./responses_wire.ts";
 * assert.ok("events" in responsesAnswer({ text: "hi" }));
 * ```
 */
export function responsesAnswer(answer: ResponsesAnswer): FakeReply {
  return { events: responsesEvents(answer) };
}
