/**
 * The Gemini API wire format (`POST /v1beta/models/M:streamGenerateContent?alt=sse`),
 * as Gemini CLI reads it, for the fake server: one server-sent event
 * carrying a candidate whose parts are the text and the function calls,
 * with the usage metadata.
 *
 * @module
 */

import type { FakeReply } from "./fake_model_server.ts";
import type { WireAnswer } from "./openai_wire.ts";

/** One answer as the API sends it. */
export interface GeminiBody {
  /** One candidate: the model's parts, and why it stopped (absent: cut off). */
  readonly candidates: readonly {
    readonly content: { readonly role: "model"; readonly parts: Record<string, unknown>[] };
    readonly finishReason?: string;
    readonly index: number;
  }[];
  /** The token counts. */
  readonly usageMetadata: Readonly<Record<string, number>>;
}

/**
 * The body of one answer (a streamed event's data, or a whole
 * `generateContent` answer). Call ids are not part of Gemini's format: a
 * function call is its name and arguments.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { geminiBody } from "./gemini_wire.ts";
 * const body = geminiBody({ toolCalls: [{ id: "c1", name: "mcp_spillway_big", arguments: {} }] });
 * assert.deepEqual(body.candidates[0]?.content.parts, [
 *   { functionCall: { name: "mcp_spillway_big", args: {} } },
 * ]);
 * ```
 */
export function geminiBody(answer: WireAnswer): GeminiBody {
  const usage = answer.usage ?? { input: 12, output: 34 };
  const parts: Record<string, unknown>[] = [];
  if (answer.text !== undefined) parts.push({ text: answer.text });
  for (const call of answer.toolCalls ?? []) {
    const args = typeof call.arguments === "string" ? JSON.parse(call.arguments) : call.arguments;
    parts.push({ functionCall: { name: call.name, args } });
  }
  return {
    candidates: [{
      content: { role: "model", parts },
      ...(answer.truncated ? {} : { finishReason: answer.atOutputLimit ? "MAX_TOKENS" : "STOP" }),
      index: 0,
    }],
    usageMetadata: {
      promptTokenCount: usage.input,
      candidatesTokenCount: usage.output,
      totalTokenCount: usage.input + usage.output,
    },
  };
}

/**
 * A streamed answer as a reply (one event).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { geminiAnswer } from "./gemini_wire.ts";
 * const reply = geminiAnswer({ text: "hi" });
 * assert.ok("events" in reply && reply.events[0]!.startsWith("data: {"));
 * ```
 */
export function geminiAnswer(answer: WireAnswer): FakeReply {
  return { events: [`data: ${JSON.stringify(geminiBody(answer))}\r\n\r\n`] };
}
