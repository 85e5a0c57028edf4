/**
 * The OpenAI chat completions wire format, as the API documents it, for the
 * fake server: a streamed answer as `data: {chunk}` server-sent events
 * ending in `data: [DONE]` (text in pieces; each tool call opened with its
 * id and name, its arguments split over several chunks and interleaved with
 * the other calls'; a usage chunk with no choices), and error bodies
 * (`{ "error": { message, type, param, code } }`).
 *
 * @module
 */

import type { FakeReply } from "./fake_model_server.ts";

/** A call the fake model makes. */
export interface WireToolCall {
  /** The call id. */
  readonly id: string;
  /** The tool's name. */
  readonly name: string;
  /** An object (sent as JSON), or the raw argument text. */
  readonly arguments: Readonly<Record<string, unknown>> | string;
}

/** What the fake model answers. */
export interface WireAnswer {
  /** The text, sent in `pieces` chunks. Default none. */
  readonly text?: string;
  /** Tool calls, streamed in parallel. Default none. */
  readonly toolCalls?: readonly WireToolCall[];
  /** How many chunks text and each call's arguments are split into. Default 3. */
  readonly pieces?: number;
  /** Token counts of the usage chunk. Default `{ input: 12, output: 34 }`. */
  readonly usage?: { readonly input: number; readonly output: number };
  /** Leave out the final chunk(s) and `[DONE]`: a stream cut off. Default false. */
  readonly truncated?: boolean;
  /**
   * The answer stopped at the model's output limit: finish_reason `length`
   * (Anthropic: stop_reason `max_tokens`). Default false.
   */
  readonly atOutputLimit?: boolean;
}

/**
 * Splits `text` into `pieces` parts (some may be empty when it is short).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitText } from "./openai_wire.ts";
 * assert.deepEqual(splitText("abcde", 2), ["abc", "de"]);
 * ```
 */
export function splitText(text: string, pieces: number): string[] {
  const size = Math.ceil(text.length / pieces);
  return Array.from({ length: pieces }, (_, i) => text.slice(i * size, (i + 1) * size));
}

/**
 * The server-sent events of a streamed chat completion.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openAiEvents } from "./openai_wire.ts";
 * const events = openAiEvents({ text: "hi", pieces: 1 });
 * assert.equal(events.at(-1), "data: [DONE]\n\n");
 * ```
 */
export function openAiEvents(answer: WireAnswer): string[] {
  const pieces = answer.pieces ?? 3;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${
      JSON.stringify({
        id: "chatcmpl-fake",
        object: "chat.completion.chunk",
        created: 1_767_225_600,
        model: "fake-model",
        choices,
        ...extra,
      })
    }\n\n`;
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
  const events = [delta({ role: "assistant", content: "" })];
  if (answer.text !== undefined) {
    for (const piece of splitText(answer.text, pieces)) events.push(delta({ content: piece }));
  }
  const calls = answer.toolCalls ?? [];
  const argumentPieces = calls.map((call) =>
    splitText(
      typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
      pieces,
    )
  );
  calls.forEach((call, index) => {
    events.push(delta({
      tool_calls: [{
        index,
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: "" },
      }],
    }));
  });
  // Round robin: the calls' arguments arrive interleaved, as parallel calls do.
  for (let piece = 0; piece < pieces; piece++) {
    calls.forEach((_, index) => {
      const part = argumentPieces[index]![piece]!;
      if (part !== "") {
        events.push(delta({ tool_calls: [{ index, function: { arguments: part } }] }));
      }
    });
  }
  if (answer.truncated) return events;
  events.push(
    delta({}, answer.atOutputLimit ? "length" : calls.length > 0 ? "tool_calls" : "stop"),
  );
  const usage = answer.usage ?? { input: 12, output: 34 };
  events.push(chunk([], {
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
    },
  }));
  events.push("data: [DONE]\n\n");
  return events;
}

/**
 * A streamed chat completion as a reply.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openAiAnswer } from "./openai_wire.ts";
 * assert.ok("events" in openAiAnswer({ text: "hi" }));
 * ```
 */
export function openAiAnswer(answer: WireAnswer, options: { hold?: boolean } = {}): FakeReply {
  return { events: openAiEvents(answer), ...(options.hold ? { hold: true } : {}) };
}

/**
 * An error reply in the API's format, with its real status code.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openAiError } from "./openai_wire.ts";
 * assert.deepEqual(openAiError(404, "no such model", { code: "model_not_found" }), {
 *   status: 404,
 *   body: { error: { message: "no such model", type: "invalid_request_error", param: null, code: "model_not_found" } },
 * });
 * ```
 */
export function openAiError(
  status: number,
  message: string,
  options: { type?: string; code?: string | null; headers?: Record<string, string> } = {},
): FakeReply {
  return {
    status,
    body: {
      error: {
        message,
        type: options.type ?? "invalid_request_error",
        param: null,
        code: options.code ?? null,
      },
    },
    ...(options.headers === undefined ? {} : { headers: options.headers }),
  };
}
