/**
 * spillway/ai-sdk inside the real AI SDK (`generateText` with a tool, the
 * OpenAI Responses provider) against the loopback fake model: what the
 * model is sent is what was recorded.
 *
 * @module
 */

import assert from "node:assert/strict";
import { generateText, isStepCount, jsonSchema, tool, wrapLanguageModel } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { spillwayMiddleware } from "../../src/adapters/ai_sdk.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../../src/review/max_tool_response_batch_bytes.ts";
import { FakeModelServer } from "../../src/testing/fake_model_server.ts";
import {
  failsWhenTheStoreCannotRecord,
  keepsTheStepWithinTheCeiling,
  type RunRound,
  sendsTheRecordedCut,
} from "./_adapter_round.ts";
import { bigLog, responsesReply, sentOutputs } from "./_responses_reply.ts";

/** One `generateText` whose model makes `calls`, then answers "done". */
const run: RunRound = async (calls, options) => {
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
    }).then(() => ({ ok: true as const }), (error) => ({ ok: false as const, error }));
    return {
      result,
      modelCalls: server.requests.length,
      sent: sentOutputs(server.requests.at(-1)!),
      conversationId: middleware.cap.conversationId,
    };
  } finally {
    await middleware.cap.close();
    await server.close();
  }
};

Deno.test(
  "spillway/ai-sdk sends the model exactly the recorded text, cut with the marker, and keeps the whole output",
  () => sendsTheRecordedCut(run),
);

Deno.test(
  "spillway/ai-sdk keeps a step of several big results within the 2 MiB ceiling, largest first",
  () => keepsTheStepWithinTheCeiling(run, MAX_TOOL_RESPONSE_BATCH_BYTES),
);

Deno.test(
  "spillway/ai-sdk fails generateText when the store cannot record, and the model is sent nothing unrecorded",
  () => failsWhenTheStoreCannotRecord(run),
);

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
