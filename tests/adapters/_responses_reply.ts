/**
 * Shared by the adapter tests: the fake model's non-streamed OpenAI
 * Responses answers (a `function_call` per tool call, or a message), the
 * `big_log` tool's output, and what a request sent as tool outputs.
 *
 * @module
 */

import type { FakeReply, RecordedRequest } from "../../src/testing/fake_model_server.ts";

/** A tool call the fake model makes. */
export interface ReplyCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** Answers so far: each gets ids of its own (LangChain merges messages of one id). */
let answers = 0;

/** A non-streamed `POST /v1/responses` answer: tool calls, else the text. */
export function responsesReply(answer: { text?: string; calls?: readonly ReplyCall[] }): FakeReply {
  const n = ++answers;
  const output = answer.calls?.length
    ? answer.calls.map((call) => ({
      type: "function_call",
      id: `fc_${call.id}`,
      call_id: call.id,
      name: call.name,
      arguments: JSON.stringify(call.arguments),
      status: "completed",
    }))
    : [{
      type: "message",
      id: `msg_${n}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: answer.text ?? "done", annotations: [] }],
    }];
  return {
    status: 200,
    body: {
      id: `resp_${n}`,
      object: "response",
      created_at: 1_765_000_000,
      status: "completed",
      model: "fake-model",
      output,
      incomplete_details: null,
      usage: {
        input_tokens: 10,
        output_tokens: 5,
        total_tokens: 15,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      },
    },
  };
}

/** `bytes` bytes of numbered log lines (ASCII). */
export function bigLog(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `${String(i).padStart(8, "0")} INFO worker ready, queue depth ${i % 97}\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join("").slice(0, bytes);
}

/** The `function_call_output`s a Responses request carried, by call id. */
export function sentOutputs(request: RecordedRequest): Map<string, string> {
  const sent = new Map<string, string>();
  const input = request.body.input;
  if (!Array.isArray(input)) return sent;
  for (const item of input as Record<string, unknown>[]) {
    if (item.type !== "function_call_output") continue;
    const output = item.output;
    sent.set(String(item.call_id), typeof output === "string" ? output : JSON.stringify(output));
  }
  return sent;
}
