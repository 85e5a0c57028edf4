/**
 * spillway/ai-sdk inside the real AI SDK (`generateText` with a tool, the
 * OpenAI Responses provider) against the loopback fake model: what the
 * model is sent is what was recorded.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { generateText, isStepCount, jsonSchema, tool, wrapLanguageModel } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { spillwayMiddleware } from "../../src/adapters/ai_sdk.ts";
import type { ToolOutputCapOptions } from "../../src/adapters/tool_output_cap.ts";
import { parseConfig } from "../../src/config/parse_config.ts";
import { formatNotice } from "../../src/review/notice.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../../src/review/max_tool_response_batch_bytes.ts";
import { FileStreamStore } from "../../src/stream/file_stream_store.ts";
import type { ToolCallResponseEvent } from "../../src/stream/events.ts";
import { FakeModelServer } from "../../src/testing/fake_model_server.ts";
import { MemoryStreamStore } from "../../src/testing/mod.ts";
import { bigLog, type ReplyCall, responsesReply, sentOutputs } from "./_responses_reply.ts";

/** Runs one `generateText` whose model makes `calls`, then answers "done". */
async function run(calls: readonly ReplyCall[], options: ToolOutputCapOptions) {
  const server = FakeModelServer.start([
    responsesReply({ calls }),
    responsesReply({ text: "done" }),
  ]);
  const middleware = await spillwayMiddleware(options);
  try {
    const openai = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: "test" });
    const result = await generateText({
      model: wrapLanguageModel({ model: openai("fake-model"), middleware }),
      prompt: "read the logs",
      stopWhen: isStepCount(3),
      tools: {
        big_log: tool({
          description: "bytes of log lines",
          inputSchema: jsonSchema<{ bytes: number }>({
            type: "object",
            properties: { bytes: { type: "integer" } },
            required: ["bytes"],
          }),
          execute: ({ bytes }) => Promise.resolve(bigLog(bytes)),
        }),
      },
    }).then(
      (r) => ({ ok: true as const, text: r.text }),
      (error) => ({ ok: false as const, error }),
    );
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

Deno.test("spillway/ai-sdk sends the model exactly the recorded text, cut with the marker, and keeps the whole output", async () => {
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
  assert.equal(result.ok, true);
  assert.equal(requests.length, 2);
  const sent = sentOutputs(requests[1]!).get("c1")!;
  assert.equal(sent, (await recorded(workspace, cap.conversationId)).get("c1"));
  assert.ok(sent.includes("\n... [truncated, 292.9 KB → 64.0 KB]\n"), sent.slice(-300));
  assert.ok(new TextEncoder().encode(sent).length <= 64 * 1024);
  assert.deepEqual(lines, ["big_log: sent 64.0 KB of 292.9 KB to the assistant (size_threshold)"]);
  const ref = /read_tool_output ref="(sha256:[0-9a-f]{64})"/.exec(sent)?.[1];
  assert.ok(ref !== undefined, "the cut names the whole output");
  // The whole output, read back through a cap over the same workspace.
  const { ToolOutputCap } = await import("../../src/adapters/tool_output_cap.ts");
  const reader = await ToolOutputCap.open({ workspace });
  try {
    assert.equal(await reader.readOutput(ref, 0, 300_000), bigLog(300_000));
  } finally {
    await reader.close();
  }
  await Deno.remove(workspace, { recursive: true });
});

Deno.test("spillway/ai-sdk keeps a step of several big results within the 2 MiB ceiling, largest first", async () => {
  const workspace = await Deno.makeTempDir();
  const lines: string[] = [];
  const sizes = [1_500_000, 1_200_000, 40_000];
  const { result, requests, cap } = await run(
    sizes.map((bytes, i) => ({ id: `c${i}`, name: "big_log", arguments: { bytes } })),
    {
      workspace,
      config: parseConfig('[conversation.tools.big_log]\nsize_threshold = "unlimited"'),
      notices: { notice: (fact) => void lines.push(formatNotice(fact)) },
    },
  );
  assert.equal(result.ok, true);
  const sent = sentOutputs(requests[1]!);
  const record = await recorded(workspace, cap.conversationId);
  assert.deepEqual(sent, record);
  const total = [...sent.values()].reduce((sum, t) => sum + new TextEncoder().encode(t).length, 0);
  assert.ok(total <= MAX_TOOL_RESPONSE_BATCH_BYTES, `${total} bytes sent`);
  assert.equal(sent.get("c2"), bigLog(40_000), "the small result stays whole");
  assert.ok(sent.get("c0")!.includes("... [truncated, 1.4 MB → "));
  assert.ok(sent.get("c1")!.includes("... [truncated, 1.1 MB → "));
  assert.equal(lines.length, 2);
  assert.ok(lines.every((line) => line.endsWith("(batch ceiling)")), lines.join("\n"));
  await Deno.remove(workspace, { recursive: true });
});

Deno.test("spillway/ai-sdk fails generateText when the store cannot record, and the model is sent nothing unrecorded", async () => {
  const { result, requests } = await run(
    [{ id: "c1", name: "big_log", arguments: { bytes: 300_000 } }],
    { store: new MemoryStreamStore({ failFlush: true }), spill: false, notices: { notice() {} } },
  );
  assert.equal(result.ok, false);
  assert.match(String(result.ok ? "" : result.error), /store|flush/i);
  assert.equal(requests.length, 1, "no request carried the unrecorded output");
});

Deno.test("spillway/ai-sdk's read_tool_output tool pages through the whole output a cut names", async () => {
  const workspace = await Deno.makeTempDir();
  const middleware = await spillwayMiddleware({ workspace, notices: { notice() {} } });
  // The model calls big_log, then read_tool_output with the ref its cut named, then answers.
  const server = FakeModelServer.start((request) => {
    const sent = sentOutputs(request);
    if (sent.size === 0) {
      return responsesReply({
        calls: [{ id: "c1", name: "big_log", arguments: { bytes: 600_000 } }],
      });
    }
    if (!sent.has("c2")) {
      const ref = /ref="(sha256:[0-9a-f]{64})"/.exec(sent.get("c1")!)?.[1];
      return responsesReply({
        calls: [{
          id: "c2",
          name: "read_tool_output",
          arguments: { ref, offset: 500_000, length: 1000 },
        }],
      });
    }
    return responsesReply({ text: "done" });
  });
  try {
    const openai = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: "test" });
    const { text } = await generateText({
      model: wrapLanguageModel({ model: openai("fake-model"), middleware }),
      prompt: "read the logs",
      stopWhen: isStepCount(4),
      tools: {
        big_log: tool({
          description: "bytes of log lines",
          inputSchema: jsonSchema<{ bytes: number }>({ type: "object", properties: {} }),
          execute: ({ bytes }) => Promise.resolve(bigLog(bytes)),
        }),
        read_tool_output: middleware.readToolOutput,
      },
    });
    assert.equal(text, "done");
    assert.equal(
      sentOutputs(server.requests[2]!).get("c2"),
      bigLog(600_000).slice(500_000, 501_000),
    );
  } finally {
    await middleware.cap.close();
    await server.close();
    await Deno.remove(workspace, { recursive: true });
  }
});
