// requires: @mastra/core zod
// spillway in Mastra: the model's tool results are capped (256 KB a tool, 2 MiB a step), recorded
// under SPILLWAY_WORKSPACE (default .spillway) and only then sent; a notice line on stderr says
// what was cut. The model is the Responses API at OPENAI_BASE_URL, through Mastra's own AI SDK
// provider; Mastra's telemetry is off, so nothing else is contacted.
import process from "node:process";
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { spillwayProcessor } from "spillway/mastra";
import { z } from "zod";

process.env.MASTRA_TELEMETRY_DISABLED = "1";
const spillway = await spillwayProcessor(); // SPILLWAY_WORKSPACE, else .spillway
try {
  const agent = new Agent({
    id: "log-reader",
    name: "log reader",
    instructions: "You read service logs.",
    model: {
      id: `openai/${process.env.OPENAI_MODEL ?? "gpt-5-mini"}`,
      url: process.env.OPENAI_BASE_URL,
      api: "responses",
    },
    tools: {
      big_log: createTool({
        id: "big_log",
        description: "The last `bytes` bytes of the service log.",
        inputSchema: z.object({ bytes: z.number().int() }),
        execute: ({ bytes }) => Promise.resolve(bigLog(bytes)),
      }),
      read_tool_output: spillway.readToolOutput, // pages through what a cut left out
    },
    inputProcessors: [spillway],
  });
  const { text } = await agent.generate("Read 1000000 bytes of the log and say what it shows.", {
    maxSteps: 4,
  });
  console.log(text);
  console.log(`recorded: conversation ${spillway.cap.conversationId}`);
} finally {
  await spillway.cap.close();
}

/** `bytes` bytes of log lines. */
function bigLog(bytes) {
  let log = "";
  for (let i = 0; log.length < bytes; i++) log += `${i} INFO worker ready, queue depth ${i % 97}\n`;
  return log.slice(0, bytes);
}
