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
import {
  failsWhenTheStoreCannotRecord,
  keepsEachCallWithinTheCeiling,
  type RunRound,
  sendsTheRecordedCut,
} from "./_adapter_round.ts";
import { BIG_LOG, messagesModel, modelCalls, sentResults } from "./_messages_reply.ts";
import { bigLog } from "./_responses_reply.ts";

/** One `query`; the model makes `calls`, then answers "done". */
const run: RunRound = async (calls, options) => {
  const server = messagesModel(calls);
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
    const requests = modelCalls(server);
    return {
      result,
      modelCalls: requests.length,
      sent: sentResults(requests.at(-1)!),
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
