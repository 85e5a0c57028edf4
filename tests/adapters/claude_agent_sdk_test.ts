/**
 * spillway/claude-agent-sdk inside the real Claude Agent SDK (`query`, the
 * native `claude` binary it runs, an in-process SDK MCP server with the
 * `big_log` tool) against the loopback fake Anthropic Messages API: what
 * the model is sent is what was recorded. The binary runs with an empty
 * home, no settings, and its telemetry and nonessential traffic off:
 * nothing leaves the machine.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createSdkMcpServer, query, tool } from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";
import { CLAUDE_CODE_INLINE_CHARS, spillwayHooks } from "../../src/adapters/claude_agent_sdk.ts";
import { anthropicAnswer } from "../../src/testing/anthropic_wire.ts";
import { FakeModelServer, type RecordedRequest } from "../../src/testing/fake_model_server.ts";
import {
  failsWhenTheStoreCannotRecord,
  keepsEachCallWithinTheCeiling,
  type RunRound,
  sendsTheRecordedCut,
} from "./_adapter_round.ts";
import { bigLog, type ReplyCall } from "./_responses_reply.ts";

type Json = Record<string, unknown>;
const array = (value: unknown): Json[] => Array.isArray(value) ? value as Json[] : [];
/** The SDK MCP server is `logs`: Claude Code names its tool so. */
const BIG_LOG = "mcp__logs__big_log";

/** The `tool_result`s a Messages request carried, by `tool_use_id`, their text blocks joined. */
function sentResults(request: RecordedRequest): Map<string, string> {
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

/** The fake model: `calls` while no result came back, then "done"; token counts answered. */
function fakeModel(calls: readonly ReplyCall[]): FakeModelServer {
  return FakeModelServer.start((request) => {
    if (request.path.endsWith("/count_tokens")) return { status: 200, body: { input_tokens: 10 } };
    if (sentResults(request).size > 0) return anthropicAnswer({ text: "done" });
    const offered = array(request.body.tools).some((t) => t.name === BIG_LOG);
    if (!offered) return anthropicAnswer({ text: "no big_log offered" });
    return anthropicAnswer({
      toolCalls: calls.map((call) => ({ id: call.id, name: BIG_LOG, arguments: call.arguments })),
    });
  });
}

/** One `query`; the model makes `calls`, then answers "done". */
const run: RunRound = async (calls, options) => {
  const server = fakeModel(calls);
  const home = await Deno.makeTempDir({ prefix: "spillway-claude-agent-sdk-" });
  const spillway = await spillwayHooks(options);
  try {
    const logs = createSdkMcpServer({
      name: "logs",
      tools: [spillway.inline(tool(
        "big_log",
        "bytes of log lines",
        { bytes: z.number().int() },
        ({ bytes }) => Promise.resolve({ content: [{ type: "text", text: bigLog(bytes) }] }),
        { alwaysLoad: true },
      ))],
    });
    const messages = query({
      prompt: "read the logs",
      options: {
        model: "claude-fake",
        mcpServers: { logs },
        tools: [],
        allowedTools: [BIG_LOG],
        hooks: spillway.hooks,
        persistSession: false,
        settingSources: [],
        cwd: home,
        env: {
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          HOME: home,
          ANTHROPIC_BASE_URL: server.url,
          ANTHROPIC_API_KEY: "test",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          DISABLE_TELEMETRY: "1",
          DISABLE_AUTOUPDATER: "1",
          DISABLE_ERROR_REPORTING: "1",
        },
      },
    });
    const result = await (async () => {
      for await (const message of spillway.guarded(messages)) {
        if (message.type === "result" && message.subtype !== "success") {
          throw new Error(`the query ended with ${message.subtype}`);
        }
      }
    })().then(() => ({ ok: true as const }), (error) => ({ ok: false as const, error }));
    const modelCalls = server.requests.filter((r) => r.path === "/v1/messages");
    return {
      result,
      modelCalls: modelCalls.length,
      sent: sentResults(modelCalls.at(-1)!),
      conversationId: spillway.cap.conversationId,
    };
  } finally {
    await spillway.cap.close();
    await server.close();
    await Deno.remove(home, { recursive: true });
  }
};

Deno.test(
  "spillway/claude-agent-sdk sends the model exactly the recorded text, cut with the marker, and keeps the whole output",
  () => sendsTheRecordedCut(run),
);

Deno.test(
  "spillway/claude-agent-sdk holds its 500,000-byte ceiling per call (the hook shows no step), inline",
  () => keepsEachCallWithinTheCeiling(run, CLAUDE_CODE_INLINE_CHARS),
);

Deno.test(
  "spillway/claude-agent-sdk fails the query when the store cannot record, and the model is sent nothing unrecorded",
  () => failsWhenTheStoreCannotRecord(run),
);

Deno.test("spillway/claude-agent-sdk refuses a ceiling Claude Code would not show inline", async () => {
  await assert.rejects(
    spillwayHooks({ batchBytes: 2 * 1024 * 1024, notices: { notice() {} } }),
    /batchBytes = 2097152 is above the 500000 characters Claude Code shows inline/,
  );
});
