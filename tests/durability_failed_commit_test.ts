/**
 * A commit whose fsync fails is never part of the conversation: the real
 * pipeline (createRuntime, the in-process execution service, McpExecutor)
 * over a `FileStreamStore` whose injected `sync` fails the fsync of the
 * batch. The turn fails, every caller is told "not recorded", and the next
 * load (and the next turn on the conversation) holds none of the batch: the
 * next turn finds the calls unanswered and records them as interrupted.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseConfig } from "../src/config/parse_config.ts";
import type { ConversationMessage, ProviderRequest } from "../src/provider/provider.ts";
import { createRuntime } from "../src/runtime/create_runtime.ts";
import type { BuiltinTool } from "../src/service/builtin/builtin_tool.ts";
import { FileStreamStore } from "../src/stream/file_stream_store.ts";
import { INTERRUPTED_RESPONSE } from "../src/stream/repair_interrupted_turn.ts";

/** What the tool returns: distinctive, so any trace of it in the stream or a request shows. */
const SECRET = "batch-result-that-was-never-durable";

const secretTool: BuiltinTool = {
  name: "secret",
  description: "Returns a distinctive text.",
  inputSchema: { type: "object", properties: {} },
  run: (args) => Promise.resolve(`${SECRET} ${String(args.n)}`),
};

Deno.test("a commit whose fsync fails is in no later load nor in the next turn's request", async () => {
  const workspace = await Deno.makeTempDir({ prefix: "spillway_failed_commit_" });
  const root = join(workspace, "conversations");
  const syncs: string[] = [];
  // Fails the fsync of the first batch of responses: the commit's flush.
  let failed = false;
  const store = new FileStreamStore(root, {
    sync: async (file) => {
      const log = await readLogs(root);
      if (!failed && log.includes('"type":"tool_call_response"')) {
        failed = true;
        syncs.push("failed");
        throw new Error("Input/output error (os error 5)");
      }
      syncs.push("ok");
      await file.syncData();
    },
  });
  const requests: ProviderRequest[] = [];
  const warnings: string[] = [];
  const runtime = await createRuntime({
    workspace,
    cwd: workspace,
    config: parseConfig(""),
    store,
    tools: [secretTool],
    provider: (request) => {
      requests.push(request);
      if (requests.length === 1) {
        return Promise.resolve({
          text: "Two calls.",
          toolCalls: [
            { id: "call_1", name: "secret", arguments: { n: 1 } },
            { id: "call_2", name: "secret", arguments: { n: 2 } },
          ],
        });
      }
      return Promise.resolve({ text: "Going on.", toolCalls: [] });
    },
    noticeSink: { notice: () => {} },
    warn: (message) => warnings.push(message),
  });
  try {
    const first = await runtime.query("call the tool");
    assert.equal(first.status, "failed");
    assert.equal(first.error?.code, "not_recorded");
    assert.match(
      first.reason ?? "",
      /^the results of this batch were not recorded: could not flush .*events\.jsonl: Input\/output error \(os error 5\)$/,
    );
    assert.ok(syncs.includes("failed"), `the batch's fsync never ran: ${syncs}`);
    assert.equal(requests.length, 1, "no request after the failed commit");

    // A fresh store (another process) loads no trace of the batch.
    const fresh = await new FileStreamStore(root).open(first.conversationId);
    const { events } = await fresh.load();
    await fresh.close();
    assert.ok(!JSON.stringify(events).includes(SECRET), "the batch is still in the log");
    assert.deepEqual(
      events.filter((e) => e.type === "tool_call_request").map((e) => e.type),
      ["tool_call_request", "tool_call_request"],
    );
    assert.deepEqual(events.at(-1), {
      type: "turn_end",
      turn_id: `${first.conversationId}/1`,
      status: "failed",
      reason: first.reason,
      at: (events.at(-1) as { at: string }).at,
    });

    // The conversation goes on without the batch: its calls are answered as interrupted.
    const second = await runtime.query("go on", { conversationId: first.conversationId });
    assert.equal(second.status, "finished", second.reason);
    assert.deepEqual(warnings, [
      `conversation ${first.conversationId}: its last turn ended with 2 unanswered calls; ` +
      `recorded them as interrupted`,
    ]);
    const sent = requests[1]!.messages;
    assert.ok(!JSON.stringify(sent).includes(SECRET), "the next request carries the batch");
    assert.deepEqual(
      sent.slice(-3),
      [
        { role: "tool", id: "call_1", content: INTERRUPTED_RESPONSE, isError: true },
        { role: "tool", id: "call_2", content: INTERRUPTED_RESPONSE, isError: true },
        { role: "user", content: "go on" },
      ] satisfies ConversationMessage[],
    );
  } finally {
    await runtime.close();
    await Deno.remove(workspace, { recursive: true });
  }
});

/** Every events.jsonl under `root`, concatenated (one conversation here). */
async function readLogs(root: string): Promise<string> {
  let text = "";
  for await (const entry of Deno.readDir(root)) {
    try {
      text += await Deno.readTextFile(join(root, entry.name, "events.jsonl"));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return text;
}
