/**
 * Shared by the Claude Agent SDK tests: the fake Anthropic Messages API the
 * `claude` binary talks to (it calls the in-process `logs` server's
 * `big_log` while no result came back, then answers; token counts are
 * answered too), and what a request sent as tool results.
 *
 * @module
 */

import { anthropicAnswer } from "../../src/testing/anthropic_wire.ts";
import { FakeModelServer, type RecordedRequest } from "../../src/testing/fake_model_server.ts";
import type { ReplyCall } from "./_responses_reply.ts";

type Json = Record<string, unknown>;
const array = (value: unknown): Json[] => Array.isArray(value) ? value as Json[] : [];

/** The SDK MCP server is `logs`: Claude Code names its tool so. */
export const BIG_LOG = "mcp__logs__big_log";

/** The `tool_result`s a Messages request carried, by `tool_use_id`, their text blocks joined. */
export function sentResults(request: RecordedRequest): Map<string, string> {
  const sent = new Map<string, string>();
  for (const message of array(request.body.messages)) {
    for (const block of array(message.content)) {
      if (block.type !== "tool_result") continue;
      const text = typeof block.content === "string"
        ? block.content
        : array(block.content).map((part) => String(part.text)).join("");
      sent.set(String(block.tool_use_id), text);
    }
  }
  return sent;
}

/** The model calls among the requests (token counts left out). */
export function modelCalls(server: FakeModelServer): RecordedRequest[] {
  return server.requests.filter((request) => request.path === "/v1/messages");
}

/** The fake model: `calls` (of `big_log`) while no result came back, then `text`. */
export function messagesModel(calls: readonly ReplyCall[], text = "done"): FakeModelServer {
  return FakeModelServer.start((request) => {
    if (request.path.endsWith("/count_tokens")) return { status: 200, body: { input_tokens: 10 } };
    if (sentResults(request).size > 0) return anthropicAnswer({ text });
    const offered = array(request.body.tools).some((t) => t.name === BIG_LOG);
    if (!offered) return anthropicAnswer({ text: "no big_log offered" });
    return anthropicAnswer({
      toolCalls: calls.map((call) => ({ id: call.id, name: BIG_LOG, arguments: call.arguments })),
    });
  });
}
