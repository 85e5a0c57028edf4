/**
 * spillway/langchain inside real LangChain.js (`createAgent`, `ChatOpenAI`
 * on the Responses API) against the loopback fake model: what the model
 * is sent is what was recorded.
 *
 * @module
 */

import { ChatOpenAI } from "@langchain/openai";
import { createAgent, tool } from "langchain";
import { z } from "zod";
import { spillwayAgentMiddleware } from "../../src/adapters/langchain.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../../src/review/max_tool_response_batch_bytes.ts";
import { FakeModelServer } from "../../src/testing/fake_model_server.ts";
import {
  failsWhenTheStoreCannotRecord,
  keepsEachCallWithinTheCeiling,
  type RunRound,
  sendsTheRecordedCut,
} from "./_adapter_round.ts";
import { bigLog, responsesReply, sentOutputs } from "./_responses_reply.ts";

/** The agent run once; its model makes `calls`, then answers "done". */
const run: RunRound = async (calls, options) => {
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
  "spillway/langchain sends the model exactly the recorded text, cut with the marker, and keeps the whole output",
  () => sendsTheRecordedCut(run),
);

Deno.test(
  "spillway/langchain holds the 2 MiB ceiling per call (the hook shows no step)",
  () => keepsEachCallWithinTheCeiling(run, MAX_TOOL_RESPONSE_BATCH_BYTES),
);

Deno.test(
  "spillway/langchain fails the run when the store cannot record, and the model is sent nothing unrecorded",
  () => failsWhenTheStoreCannotRecord(run),
);
