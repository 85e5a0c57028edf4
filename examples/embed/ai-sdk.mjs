// requires: ai @ai-sdk/openai
// spillway in the AI SDK: the model's tool results are capped (256 KB a tool, 2 MiB a step),
// recorded under SPILLWAY_WORKSPACE (default .spillway) and only then sent; a notice line on
// stderr says what was cut. The model is the Responses API at OPENAI_BASE_URL; nothing else is
// contacted (the AI SDK sends no telemetry unless one is registered).
import process from "node:process";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from "ai";
import { spillwayMiddleware } from "spillway/ai-sdk";

const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL });
const middleware = await spillwayMiddleware(); // SPILLWAY_WORKSPACE, else .spillway
try {
  const { text } = await generateText({
    model: wrapLanguageModel({
      model: openai(process.env.OPENAI_MODEL ?? "gpt-5-mini"),
      middleware,
    }),
    prompt: "Read 1000000 bytes of the log and say what it shows.",
    stopWhen: stepCountIs(4),
    tools: {
      big_log: tool({
        description: "The last `bytes` bytes of the service log.",
        inputSchema: jsonSchema({
          type: "object",
          properties: { bytes: { type: "integer" } },
          required: ["bytes"],
        }),
        execute: ({ bytes }) => bigLog(bytes),
      }),
    },
  });
  console.log(text);
  console.log(`recorded: conversation ${middleware.cap.conversationId}`);
} finally {
  await middleware.cap.close();
}

/** `bytes` bytes of log lines. */
function bigLog(bytes) {
  let log = "";
  for (let i = 0; log.length < bytes; i++) log += `${i} INFO worker ready, queue depth ${i % 97}\n`;
  return log.slice(0, bytes);
}
