/**
 * The framework adapters (docs/adapters.md): what a 5 MB tool result costs
 * inside each framework (AI SDK, OpenAI Agents, LangChain.js, Mastra, the
 * Claude Agent SDK) with spillway (cut to 256 KB, the whole output spilled,
 * the step recorded and fsynced) against the same step of the same
 * framework without it (the baseline: the 5 MB sent whole; Claude Code
 * alone writes it to a file and sends 2 KB of it). Each iteration is one
 * tool round against the loopback fake model: a call, the tool's 5 MB, the
 * model's answer; a Claude Agent SDK round also starts the `claude` binary.
 * Tracing and telemetry are off.
 *
 * @module
 */

import { createOpenAI } from "@ai-sdk/openai";
import { createSdkMcpServer, query, tool as claudeTool } from "@anthropic-ai/claude-agent-sdk";
import { Agent as MastraAgent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
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
import { spillwayProcessor } from "../../src/adapters/mastra.ts";
import { spillwayHooks } from "../../src/adapters/claude_agent_sdk.ts";
import type { ToolOutputCapOptions } from "../../src/adapters/tool_output_cap.ts";
import { FakeModelServer } from "../../src/testing/fake_model_server.ts";
import { BIG_LOG, messagesModel } from "../adapters/_messages_reply.ts";
import { bigLog, responsesReply } from "../adapters/_responses_reply.ts";

setTracingDisabled(true);
Deno.env.set("MASTRA_TELEMETRY_DISABLED", "1");
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
const processor = await spillwayProcessor(options);
const hooks = await spillwayHooks(options);

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

function mastraAgent(guarded: boolean, result = RESULT) {
  return new MastraAgent({
    id: "reader",
    name: "reader",
    instructions: "read",
    model: { id: "openai/fake-model", url: `${server.url}/v1`, apiKey: "bench", api: "responses" },
    tools: {
      big_log: createTool({
        id: "big_log",
        description: "log lines",
        inputSchema: z.object({}),
        execute: () => Promise.resolve(result),
      }),
    },
    inputProcessors: guarded ? [processor] : [],
  });
}
const plainMastra = mastraAgent(false);
const cappedMastra = mastraAgent(true);
const smallMastra = mastraAgent(false, SENT);
async function mastraRound(which: MastraAgent) {
  const { text } = await which.generate("read", { maxSteps: 3 });
  server.requests.length = 0;
  if (text !== "done") throw new Error(`the round ended with ${JSON.stringify(text)}`);
}

Deno.bench("mastra: a 5 MB result, the framework alone", {
  group: "mastra",
  baseline: true,
  ...ROUNDS,
}, async () => await mastraRound(plainMastra));
Deno.bench("mastra: a 5 MB result through spillway/mastra", {
  group: "mastra",
  ...ROUNDS,
}, async () => await mastraRound(cappedMastra));
Deno.bench(
  "mastra: a 256 KB result (what spillway sends), the framework alone",
  { group: "mastra", ...ROUNDS },
  async () => await mastraRound(smallMastra),
);

/** A round starts Claude Code (about a second): fewer of them. */
const CLAUDE_ROUNDS = { n: 10, warmup: 1 };
const anthropic = messagesModel([{ id: "c1", name: BIG_LOG, arguments: {} }]);
const claudeHome = await Deno.makeTempDir({ prefix: "spillway_adapters_bench_claude_" });
async function claudeRound(guarded: boolean, result = RESULT) {
  const big = claudeTool(
    "big_log",
    "log lines",
    {},
    () => Promise.resolve({ content: [{ type: "text", text: result }] }),
    { alwaysLoad: true },
  );
  const logs = createSdkMcpServer({ name: "logs", tools: [hooks.inline(big)] });
  const messages = query({
    prompt: "read",
    options: {
      model: "claude-fake",
      mcpServers: { logs },
      tools: [],
      allowedTools: [BIG_LOG],
      ...(guarded ? { hooks: hooks.hooks } : {}),
      persistSession: false,
      settingSources: [],
      cwd: claudeHome,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: claudeHome,
        ANTHROPIC_BASE_URL: anthropic.url,
        ANTHROPIC_API_KEY: "bench",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_ERROR_REPORTING: "1",
      },
    },
  });
  let answer: string | undefined;
  for await (const message of hooks.guarded(messages)) {
    if (message.type === "result" && message.subtype === "success") answer = message.result;
  }
  anthropic.requests.length = 0;
  if (answer !== "done") throw new Error(`the query ended with ${JSON.stringify(answer)}`);
}

Deno.bench("claude-agent-sdk: a 5 MB result, the framework alone (to a file, 2 KB sent)", {
  group: "claude-agent-sdk",
  baseline: true,
  ...CLAUDE_ROUNDS,
}, async () => await claudeRound(false));
Deno.bench("claude-agent-sdk: a 5 MB result through spillway/claude-agent-sdk", {
  group: "claude-agent-sdk",
  ...CLAUDE_ROUNDS,
}, async () => await claudeRound(true));
Deno.bench(
  "claude-agent-sdk: a 256 KB result (what spillway sends), the framework alone",
  { group: "claude-agent-sdk", ...CLAUDE_ROUNDS },
  async () => await claudeRound(false, SENT),
);

globalThis.addEventListener("unload", () => {
  Deno.removeSync(workspace, { recursive: true });
  Deno.removeSync(claudeHome, { recursive: true });
});
