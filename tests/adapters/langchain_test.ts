/**
 * spillway/langchain inside real LangChain.js (`createAgent`, `ChatOpenAI`
 * on the Responses API) against the loopback fake model: what the model
 * is sent is what was recorded.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, tool } from "langchain";
import { z } from "zod";
import { spillwayAgentMiddleware } from "../../src/adapters/langchain.ts";
import { ToolOutputCap, type ToolOutputCapOptions } from "../../src/adapters/tool_output_cap.ts";
import { parseConfig } from "../../src/config/parse_config.ts";
import { formatNotice } from "../../src/review/notice.ts";
import { FileStreamStore } from "../../src/stream/file_stream_store.ts";
import type { ToolCallResponseEvent } from "../../src/stream/events.ts";
import { FakeModelServer } from "../../src/testing/fake_model_server.ts";
import { MemoryStreamStore } from "../../src/testing/mod.ts";
import { bigLog, type ReplyCall, responsesReply, sentOutputs } from "./_responses_reply.ts";

/** Runs the agent once; its model makes `calls`, then answers "done". */
async function run(calls: readonly ReplyCall[], options: ToolOutputCapOptions) {
  const server = FakeModelServer.start([
    responsesReply({ calls }),
    responsesReply({ text: "done" }),
  ]);
  const middleware = await spillwayAgentMiddleware(options);
  try {
    const agent = createAgent({
      model: new ChatOpenAI({
        model: "fake-model",
        apiKey: "test",
        configuration: { baseURL: `${server.url}/v1` },
        useResponsesApi: true,
        maxRetries: 0,
      }),
      tools: [tool(({ bytes }: { bytes: number }) => bigLog(bytes), {
        name: "big_log",
        description: "bytes of log lines",
        schema: z.object({ bytes: z.number().int() }),
      })],
      middleware: [middleware],
    });
    const result = await agent.invoke({ messages: [{ role: "user", content: "read the logs" }] })
      .then(() => ({ ok: true as const }), (error) => ({ ok: false as const, error }));
    return { result, requests: [...server.requests], cap: middleware.cap };
  } finally {
    await middleware.cap.close();
    await server.close();
  }
}

async function recorded(workspace: string, id: string): Promise<Map<string, string>> {
  const stream = await new FileStreamStore(join(workspace, "conversations")).open(id);
  const { events } = await stream.load();
  await stream.close();
  return new Map(
    events.filter((e): e is ToolCallResponseEvent => e.type === "tool_call_response")
      .map((e) => [e.id, e.content]),
  );
}

Deno.test("spillway/langchain sends the model exactly the recorded text, cut with the marker, and keeps the whole output", async () => {
  const workspace = await Deno.makeTempDir();
  const lines: string[] = [];
  const { result, requests, cap } = await run(
    [{ id: "c1", name: "big_log", arguments: { bytes: 300_000 } }],
    {
      workspace,
      config: parseConfig('[conversation.tools.big_log]\nsize_threshold = "64KB"'),
      notices: { notice: (fact) => void lines.push(formatNotice(fact)) },
    },
  );
  assert.equal(result.ok, true, String(result.ok || result.error));
  assert.equal(requests.length, 2);
  const sent = sentOutputs(requests[1]!).get("c1")!;
  assert.equal(sent, (await recorded(workspace, cap.conversationId)).get("c1"));
  assert.ok(sent.includes("\n... [truncated, 292.9 KB → 64.0 KB]\n"), sent.slice(-300));
  assert.deepEqual(lines, ["big_log: sent 64.0 KB of 292.9 KB to the assistant (size_threshold)"]);
  const ref = /read_tool_output ref="(sha256:[0-9a-f]{64})"/.exec(sent)?.[1];
  assert.ok(ref !== undefined, "the cut names the whole output");
  const reader = await ToolOutputCap.open({ workspace });
  try {
    assert.equal(await reader.readOutput(ref, 0, 300_000), bigLog(300_000));
  } finally {
    await reader.close();
  }
  await Deno.remove(workspace, { recursive: true });
});

Deno.test("spillway/langchain fails the run when the store cannot record, and the model is sent nothing unrecorded", async () => {
  const { result, requests } = await run(
    [{ id: "c1", name: "big_log", arguments: { bytes: 300_000 } }],
    { store: new MemoryStreamStore({ failFlush: true }), spill: false, notices: { notice() {} } },
  );
  assert.equal(result.ok, false);
  assert.match(String(result.ok ? "" : result.error), /store|flush/i);
  assert.equal(requests.length, 1, "no request carried the unrecorded output");
});
