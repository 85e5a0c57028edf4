// requires: @anthropic-ai/claude-agent-sdk zod
// spillway in the Claude Agent SDK: each MCP tool output is capped (256 KB a tool, 500,000 bytes a
// call: what Claude Code shows inline), recorded under SPILLWAY_WORKSPACE (default .spillway) and
// only then sent; a notice line on stderr says what was cut. The model is the Messages API at
// ANTHROPIC_BASE_URL; Claude Code's telemetry, error reports, updates and other nonessential
// traffic are off, so nothing else is contacted.
import process from "node:process";
import { createSdkMcpServer, query, tool } from "@anthropic-ai/claude-agent-sdk";
import { spillwayHooks } from "spillway/claude-agent-sdk";
import { z } from "zod";

const spillway = await spillwayHooks(); // SPILLWAY_WORKSPACE, else .spillway
try {
  const logs = createSdkMcpServer({
    name: "logs",
    // inline(): Claude Code shows up to 500,000 characters of it, so the model reads the cut.
    tools: [spillway.inline(tool(
      "big_log",
      "The last `bytes` bytes of the service log.",
      { bytes: z.number().int() },
      ({ bytes }) => Promise.resolve({ content: [{ type: "text", text: bigLog(bytes) }] }),
      { alwaysLoad: true },
    ))],
  });
  const messages = query({
    prompt: "Read 1000000 bytes of the log and say what it shows.",
    options: {
      model: process.env.ANTHROPIC_MODEL,
      mcpServers: { logs },
      tools: [],
      allowedTools: ["mcp__logs__big_log"],
      hooks: spillway.hooks,
      persistSession: false,
      settingSources: [],
      env: {
        ...process.env,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
        DISABLE_AUTOUPDATER: "1",
      },
    },
  });
  // guarded(): throws spillway's error if an output could not be recorded (the session stopped).
  for await (const message of spillway.guarded(messages)) {
    if (message.type === "result") console.log(message.result ?? message.subtype);
  }
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
