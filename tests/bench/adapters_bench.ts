/**
 * The framework adapters (docs/adapters.md): what a 5 MB tool result costs
 * inside each framework (AI SDK, OpenAI Agents, LangChain.js) with spillway (cut to 256 KB, the whole output
 * spilled, the step recorded and fsynced) against the same step of the
 * same framework without it (the baseline: the 5 MB sent whole). Each
 * iteration is one tool round against the loopback fake model: a call,
 * the tool's 5 MB, the model's answer. Tracing is off.
 *
 * @module
 */

import { createOpenAI } from "@ai-sdk/openai";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, tool as langchainTool } from "langchain";
import { z } from "zod";
import {
  Agent,
  OpenAIProvider,
  Runner,
  setTracingDisabled,
  tool as agentTool,
} from "@openai/agents";
import {
  generateText,
  isStepCount,
  jsonSchema,
  type LanguageModel,
  tool,
  wrapLanguageModel,
} from "ai";
import { spillwayMiddleware } from "../../src/adapters/ai_sdk.ts";
import { spillwayGuardrail } from "../../src/adapters/openai_agents.ts";
import { spillwayAgentMiddleware } from "../../src/adapters/langchain.ts";
import type { ToolOutputCapOptions } from "../../src/adapters/tool_output_cap.ts";
import { FakeModelServer } from "../../src/testing/fake_model_server.ts";
import { bigLog, responsesReply } from "../adapters/_responses_reply.ts";

setTracingDisabled(true);
/** Each round moves megabytes: a fixed, small count of them gives steady figures. */
const ROUNDS = { n: 30, warmup: 3 };
const RESULT = bigLog(5 * 1024 * 1024);
/** What the capped rounds send: the framework alone with it is spillway's cost left out. */
const SENT = bigLog(256 * 1024);
let calls = 0;
// Answers a request that carries a tool output with text, any other with a new call.
const server = FakeModelServer.start((request) =>
  JSON.stringify(request.body.input).includes("function_call_output")
    ? responsesReply({ text: "done" })
    : responsesReply({ calls: [{ id: `c${++calls}`, name: "big_log", arguments: { bytes: 1 } }] })
);
const workspace = await Deno.makeTempDir({ prefix: "spillway_adapters_bench_" });
const options: ToolOutputCapOptions = { workspace, notices: { notice() {} } };
const middleware = await spillwayMiddleware(options);
const guardrail = await spillwayGuardrail(options);
const agentMiddleware = await spillwayAgentMiddleware(options);

const openai = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: "bench" });
const aiTools = (result: string) => ({
  big_log: tool({
    description: "log lines",
    inputSchema: jsonSchema<{ bytes: number }>({ type: "object", properties: {} }),
    execute: () => Promise.resolve(result),
  }),
});
async function aiSdkRound(model: LanguageModel, result = RESULT) {
  const { text } = await generateText({
    model,
    prompt: "read",
    tools: aiTools(result),
    stopWhen: isStepCount(3),
  });
  server.requests.length = 0; // the fake keeps every body: megabytes a round
  if (text !== "done") throw new Error(`the round ended with ${JSON.stringify(text)}`);
}
const plainModel = openai("fake-model");
const cappedModel = wrapLanguageModel({ model: openai("fake-model"), middleware });

const runner = new Runner({
  modelProvider: new OpenAIProvider({
    baseURL: `${server.url}/v1`,
    apiKey: "bench",
    useResponses: true,
  }),
  tracingDisabled: true,
});
function agent(guarded: boolean, result = RESULT) {
  return new Agent({
    name: "reader",
    model: "fake-model",
    tools: [agentTool({
      name: "big_log",
      description: "log lines",
      parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
      strict: true,
      execute: () => Promise.resolve(result),
      ...(guarded ? { outputGuardrails: [guardrail] } : {}),
    })],
  });
}
const plainAgent = agent(false);
const cappedAgent = agent(true);
const smallAgent = agent(false, SENT);
async function agentsRound(which: ReturnType<typeof agent>) {
  const result = await runner.run(which, "read");
  server.requests.length = 0;
  if (result.finalOutput !== "done") throw new Error(`the run ended with ${result.finalOutput}`);
}

Deno.bench("ai-sdk: a 5 MB result, the framework alone", {
  group: "ai-sdk",
  baseline: true,
  ...ROUNDS,
}, async () => await aiSdkRound(plainModel));
Deno.bench(
  "ai-sdk: a 5 MB result through spillway/ai-sdk",
  { group: "ai-sdk", ...ROUNDS },
  async () => await aiSdkRound(cappedModel),
);
Deno.bench(
  "ai-sdk: a 256 KB result (what spillway sends), the framework alone",
  { group: "ai-sdk", ...ROUNDS },
  async () => await aiSdkRound(plainModel, SENT),
);
Deno.bench("openai-agents: a 5 MB result, the framework alone", {
  group: "openai-agents",
  baseline: true,
  ...ROUNDS,
}, async () => await agentsRound(plainAgent));
Deno.bench("openai-agents: a 5 MB result through spillway/openai-agents", {
  group: "openai-agents",
  ...ROUNDS,
}, async () => await agentsRound(cappedAgent));

Deno.bench(
  "openai-agents: a 256 KB result (what spillway sends), the framework alone",
  { group: "openai-agents", ...ROUNDS },
  async () => await agentsRound(smallAgent),
);

function langchainAgent(guarded: boolean, result = RESULT) {
  return createAgent({
    model: new ChatOpenAI({
      model: "fake-model",
      apiKey: "bench",
      configuration: { baseURL: `${server.url}/v1` },
      useResponsesApi: true,
      maxRetries: 0,
    }),
    tools: [langchainTool(() => result, {
      name: "big_log",
      description: "log lines",
      schema: z.object({}),
    })],
    middleware: guarded ? [agentMiddleware] : [],
  });
}
const plainGraph = langchainAgent(false);
const cappedGraph = langchainAgent(true);
const smallGraph = langchainAgent(false, SENT);
async function langchainRound(graph: ReturnType<typeof langchainAgent>) {
  const { messages } = await graph.invoke({ messages: [{ role: "user", content: "read" }] });
  server.requests.length = 0;
  if (messages.at(-1)?.text !== "done") throw new Error("the round did not end with the answer");
}

Deno.bench("langchain: a 5 MB result, the framework alone", {
  group: "langchain",
  baseline: true,
  ...ROUNDS,
}, async () => await langchainRound(plainGraph));
Deno.bench("langchain: a 5 MB result through spillway/langchain", {
  group: "langchain",
  ...ROUNDS,
}, async () => await langchainRound(cappedGraph));
Deno.bench(
  "langchain: a 256 KB result (what spillway sends), the framework alone",
  { group: "langchain", ...ROUNDS },
  async () => await langchainRound(smallGraph),
);

globalThis.addEventListener("unload", () => {
  Deno.removeSync(workspace, { recursive: true });
});
