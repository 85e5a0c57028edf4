// requires: @openai/agents
// spillway in the OpenAI Agents SDK: each tool output is capped (256 KB a tool, 2 MiB a call),
// recorded under SPILLWAY_WORKSPACE (default .spillway) and only then sent; a notice line on
// stderr says what was cut. The model is the Responses API at OPENAI_BASE_URL; tracing is off,
// so nothing else is contacted.
import process from "node:process";
process.env.OPENAI_AGENTS_DISABLE_TRACING = "1";
const { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } = await import("@openai/agents");
const { spillwayGuardrail } = await import("spillway/openai-agents");
setTracingDisabled(true);

const guardrail = await spillwayGuardrail(); // SPILLWAY_WORKSPACE, else .spillway
try {
  const runner = new Runner({
    modelProvider: new OpenAIProvider({ baseURL: process.env.OPENAI_BASE_URL, useResponses: true }),
    tracingDisabled: true,
  });
  const agent = new Agent({
    name: "log reader",
    model: process.env.OPENAI_MODEL ?? "gpt-5-mini",
    tools: [tool({
      name: "big_log",
      description: "The last `bytes` bytes of the service log.",
      parameters: {
        type: "object",
        properties: { bytes: { type: "integer" } },
        required: ["bytes"],
        additionalProperties: false,
      },
      strict: true,
      execute: ({ bytes }) => bigLog(bytes),
      outputGuardrails: [guardrail],
    })],
  });
  const result = await runner.run(agent, "Read 1000000 bytes of the log and say what it shows.");
  console.log(result.finalOutput);
  console.log(`recorded: conversation ${guardrail.cap.conversationId}`);
} finally {
  await guardrail.cap.close();
}

/** `bytes` bytes of log lines. */
function bigLog(bytes) {
  let log = "";
  for (let i = 0; log.length < bytes; i++) log += `${i} INFO worker ready, queue depth ${i % 97}\n`;
  return log.slice(0, bytes);
}
