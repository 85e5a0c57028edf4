/**
 * spillway/openai-agents inside the real OpenAI Agents SDK (a `Runner` on
 * the Responses API, a function tool with spillway's output guardrail)
 * against the loopback fake model: what the model is sent is what was
 * recorded. Tracing is off: nothing leaves the machine.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from "@openai/agents";
import { spillwayGuardrail } from "../../src/adapters/openai_agents.ts";
import { ToolOutputCap, type ToolOutputCapOptions } from "../../src/adapters/tool_output_cap.ts";
import { parseConfig } from "../../src/config/parse_config.ts";
import { formatNotice } from "../../src/review/notice.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../../src/review/max_tool_response_batch_bytes.ts";
import { FileStreamStore } from "../../src/stream/file_stream_store.ts";
import type { ToolCallResponseEvent } from "../../src/stream/events.ts";
import { FakeModelServer } from "../../src/testing/fake_model_server.ts";
import { MemoryStreamStore } from "../../src/testing/mod.ts";
import { bigLog, type ReplyCall, responsesReply, sentOutputs } from "./_responses_reply.ts";

setTracingDisabled(true);

/** Runs the agent once; its model makes `calls`, then answers "done". */
async function run(calls: readonly ReplyCall[], options: ToolOutputCapOptions) {
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
      (r) => ({ ok: true as const, text: String(r.finalOutput) }),
      (error) => ({ ok: false as const, error }),
    );
    return { result, requests: [...server.requests], cap: guardrail.cap };
  } finally {
    await guardrail.cap.close();
    await server.close();
  }
}

async function recorded(workspace: string, id: string): Promise<Map<string, string>> {
  const stream = await new FileStreamStore(join(workspace, "conversations")).open(id);
  const { events } = await stream.load();
  await stream.close();
  return new Map(
    events.filter((e): e is ToolCallResponseEvent => e.type === "tool_call_response")
      .map((e) => [e.id, e.content]),
  );
}

Deno.test("spillway/openai-agents sends the model exactly the recorded text, cut with the marker, and keeps the whole output", async () => {
  const workspace = await Deno.makeTempDir();
  const lines: string[] = [];
  const { result, requests, cap } = await run(
    [{ id: "c1", name: "big_log", arguments: { bytes: 300_000 } }],
    {
      workspace,
      config: parseConfig('[conversation.tools.big_log]\nsize_threshold = "64KB"'),
      notices: { notice: (fact) => void lines.push(formatNotice(fact)) },
    },
  );
  assert.equal(result.ok, true, String(result.ok || result.error));
  assert.equal(requests.length, 2);
  const sent = sentOutputs(requests[1]!).get("c1")!;
  assert.equal(sent, (await recorded(workspace, cap.conversationId)).get("c1"));
  assert.ok(sent.includes("\n... [truncated, 292.9 KB → 64.0 KB]\n"), sent.slice(-300));
  assert.deepEqual(lines, ["big_log: sent 64.0 KB of 292.9 KB to the assistant (size_threshold)"]);
  const ref = /read_tool_output ref="(sha256:[0-9a-f]{64})"/.exec(sent)?.[1];
  assert.ok(ref !== undefined, "the cut names the whole output");
  const reader = await ToolOutputCap.open({ workspace });
  try {
    assert.equal(await reader.readOutput(ref, 0, 300_000), bigLog(300_000));
  } finally {
    await reader.close();
  }
  await Deno.remove(workspace, { recursive: true });
});

Deno.test("spillway/openai-agents holds the 2 MiB ceiling per call (the runner shows no step)", async () => {
  const workspace = await Deno.makeTempDir();
  const lines: string[] = [];
  const { result, requests, cap } = await run(
    [{ id: "c0", name: "big_log", arguments: { bytes: 3_000_000 } }, {
      id: "c1",
      name: "big_log",
      arguments: { bytes: 40_000 },
    }],
    {
      workspace,
      config: parseConfig('[conversation.tools.big_log]\nsize_threshold = "unlimited"'),
      notices: { notice: (fact) => void lines.push(formatNotice(fact)) },
    },
  );
  assert.equal(result.ok, true, String(result.ok || result.error));
  const sent = sentOutputs(requests[1]!);
  assert.deepEqual(sent, await recorded(workspace, cap.conversationId));
  const bytes = new TextEncoder().encode(sent.get("c0")!).length;
  assert.ok(bytes <= MAX_TOOL_RESPONSE_BATCH_BYTES, `${bytes} bytes sent`);
  assert.ok(sent.get("c0")!.includes("... [truncated, 2.8 MB → 2.0 MB]"));
  assert.equal(sent.get("c1"), bigLog(40_000));
  assert.deepEqual(lines, ["big_log: sent 2.0 MB of 2.8 MB to the assistant (batch ceiling)"]);
  await Deno.remove(workspace, { recursive: true });
});

Deno.test("spillway/openai-agents fails the run when the store cannot record, and the model is sent nothing unrecorded", async () => {
  const { result, requests } = await run(
    [{ id: "c1", name: "big_log", arguments: { bytes: 300_000 } }],
    { store: new MemoryStreamStore({ failFlush: true }), spill: false, notices: { notice() {} } },
  );
  assert.equal(result.ok, false);
  assert.match(String(result.ok ? "" : result.error), /store|flush/i);
  assert.equal(requests.length, 1, "no request carried the unrecorded output");
});
