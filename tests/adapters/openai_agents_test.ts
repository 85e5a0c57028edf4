/**
 * spillway/openai-agents inside the real OpenAI Agents SDK (a `Runner` on
 * the Responses API, a function tool with spillway's output guardrail)
 * against the loopback fake model: what the model is sent is what was
 * recorded. Tracing is off: nothing leaves the machine.
 *
 * @module
 */

import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from "@openai/agents";
import { spillwayGuardrail } from "../../src/adapters/openai_agents.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../../src/review/max_tool_response_batch_bytes.ts";
import { FakeModelServer } from "../../src/testing/fake_model_server.ts";
import {
  failsWhenTheStoreCannotRecord,
  keepsEachCallWithinTheCeiling,
  type RunRound,
  sendsTheRecordedCut,
} from "./_adapter_round.ts";
import { bigLog, responsesReply, sentOutputs } from "./_responses_reply.ts";

setTracingDisabled(true);

/** The agent run once; its model makes `calls`, then answers "done". */
const run: RunRound = async (calls, options) => {
  const server = FakeModelServer.start([
    responsesReply({ calls }),
    responsesReply({ text: "done" }),
  ]);
  const guardrail = await spillwayGuardrail(options);
  try {
    const runner = new Runner({
      modelProvider: new OpenAIProvider({
        baseURL: `${server.url}/v1`,
        apiKey: "test",
        useResponses: true,
      }),
      tracingDisabled: true,
    });
    const agent = new Agent({
      name: "reader",
      model: "fake-model",
      tools: [tool({
        name: "big_log",
        description: "bytes of log lines",
        parameters: {
          type: "object",
          properties: { bytes: { type: "integer" } },
          required: ["bytes"],
          additionalProperties: false,
        },
        strict: true,
        execute: (input) => Promise.resolve(bigLog((input as { bytes: number }).bytes)),
        outputGuardrails: [guardrail],
      })],
    });
    const result = await runner.run(agent, "read the logs").then(
      () => ({ ok: true as const }),
      (error) => ({ ok: false as const, error }),
    );
    return {
      result,
      modelCalls: server.requests.length,
      sent: sentOutputs(server.requests.at(-1)!),
      conversationId: guardrail.cap.conversationId,
    };
  } finally {
    await guardrail.cap.close();
    await server.close();
  }
};

Deno.test(
  "spillway/openai-agents sends the model exactly the recorded text, cut with the marker, and keeps the whole output",
  () => sendsTheRecordedCut(run),
);

Deno.test(
  "spillway/openai-agents holds the 2 MiB ceiling per call (the runner shows no step)",
  () => keepsEachCallWithinTheCeiling(run, MAX_TOOL_RESPONSE_BATCH_BYTES),
);

Deno.test(
  "spillway/openai-agents fails the run when the store cannot record, and the model is sent nothing unrecorded",
  () => failsWhenTheStoreCannotRecord(run),
);
