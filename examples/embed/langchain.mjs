// requires: langchain @langchain/openai @langchain/core zod
// spillway in LangChain.js: each tool result is capped (256 KB a tool, 2 MiB a call), recorded
// under SPILLWAY_WORKSPACE (default .spillway) and only then sent; a notice line on stderr says
// what was cut. The model is the Responses API at OPENAI_BASE_URL; LangSmith tracing stays off
// (it is off unless LANGSMITH_TRACING is set), so nothing else is contacted.
import process from "node:process";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, tool } from "langchain";
import { spillwayAgentMiddleware } from "spillway/langchain";
import { z } from "zod";

delete process.env.LANGSMITH_TRACING;
delete process.env.LANGCHAIN_TRACING_V2;
const middleware = await spillwayAgentMiddleware(); // SPILLWAY_WORKSPACE, else .spillway
try {
  const agent = createAgent({
    model: new ChatOpenAI({
      model: process.env.OPENAI_MODEL ?? "gpt-5-mini",
      configuration: { baseURL: process.env.OPENAI_BASE_URL },
      useResponsesApi: true,
    }),
    tools: [tool(({ bytes }) => bigLog(bytes), {
      name: "big_log",
      description: "The last `bytes` bytes of the service log.",
      schema: z.object({ bytes: z.number().int() }),
    })],
    middleware: [middleware],
  });
  const { messages } = await agent.invoke({
    messages: [{ role: "user", content: "Read 1000000 bytes of the log and say what it shows." }],
  });
  console.log(messages.at(-1).text);
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
