/**
 * spillway/mastra inside real Mastra (an `Agent` with a `createTool` tool,
 * the model an AI SDK OpenAI Responses provider) against the loopback fake
 * model: what the model is sent is what was recorded. Mastra's telemetry
 * is off (`MASTRA_TELEMETRY_DISABLED`): nothing leaves the machine.
 *
 * @module
 */

import assert from "node:assert/strict";
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { z } from "zod";
import { spillwayProcessor } from "../../src/adapters/mastra.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../../src/review/max_tool_response_batch_bytes.ts";
import { FakeModelServer } from "../../src/testing/fake_model_server.ts";
import {
  failsWhenTheStoreCannotRecord,
  keepsTheStepWithinTheCeiling,
  type RunRound,
  sendsTheRecordedCut,
} from "./_adapter_round.ts";
import { bigLog, responsesReply, sentOutputs } from "./_responses_reply.ts";

Deno.env.set("MASTRA_TELEMETRY_DISABLED", "1");

const bigLogTool = createTool({
  id: "big_log",
  description: "bytes of log lines",
  inputSchema: z.object({ bytes: z.number().int() }),
  execute: ({ bytes }) => Promise.resolve(bigLog(bytes)),
});

/** Mastra's model router to the fake model's Responses API (Mastra's own AI SDK provider). */
function fakeModel(server: FakeModelServer) {
  return {
    id: "openai/fake-model",
    url: `${server.url}/v1`,
    apiKey: "test",
    api: "responses",
  } as const;
}

/** The agent's `generate` once; its model makes `calls`, then answers "done". */
const run: RunRound = async (calls, options) => {
  const server = FakeModelServer.start([
    responsesReply({ calls }),
    responsesReply({ text: "done" }),
  ]);
  const spillway = await spillwayProcessor(options);
  try {
    const agent = new Agent({
      id: "reader",
      name: "reader",
      instructions: "Read the logs.",
      model: fakeModel(server),
      tools: { big_log: bigLogTool },
      inputProcessors: [spillway],
    });
    const result = await agent.generate("read the logs", { maxSteps: 3 }).then(
      () => ({ ok: true as const }),
      (error) => ({ ok: false as const, error }),
    );
    return {
      result,
      modelCalls: server.requests.length,
      sent: sentOutputs(server.requests.at(-1)!),
      conversationId: spillway.cap.conversationId,
    };
  } finally {
    await spillway.cap.close();
    await server.close();
  }
};

Deno.test(
  "spillway/mastra sends the model exactly the recorded text, cut with the marker, and keeps the whole output",
  () => sendsTheRecordedCut(run),
);

Deno.test(
  "spillway/mastra keeps a step of several big results within the 2 MiB ceiling, largest first",
  () => keepsTheStepWithinTheCeiling(run, MAX_TOOL_RESPONSE_BATCH_BYTES),
);

Deno.test(
  "spillway/mastra fails generate when the store cannot record, and the model is sent nothing unrecorded",
  () => failsWhenTheStoreCannotRecord(run),
);

Deno.test("spillway/mastra's read_tool_output tool pages through the whole output a cut names", async () => {
  const workspace = await Deno.makeTempDir();
  const spillway = await spillwayProcessor({ workspace, notices: { notice() {} } });
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
    const agent = new Agent({
      id: "reader",
      name: "reader",
      instructions: "Read the logs.",
      model: fakeModel(server),
      tools: { big_log: bigLogTool, read_tool_output: spillway.readToolOutput },
      inputProcessors: [spillway],
    });
    const { text } = await agent.generate("read the logs", { maxSteps: 4 });
    assert.equal(text, "done");
    assert.equal(
      sentOutputs(server.requests[2]!).get("c2"),
      bigLog(600_000).slice(500_000, 501_000),
    );
  } finally {
    await spillway.cap.close();
    await server.close();
    await Deno.remove(workspace, { recursive: true });
  }
});
