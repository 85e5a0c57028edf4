/**
 * examples/embed/*.mjs as a builder runs them from the checkout (`deno run
 * -A`), against the loopback fake model at OPENAI_BASE_URL: each prints
 * the notice, and the model is sent the recorded cut.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { FileStreamStore } from "../../src/stream/file_stream_store.ts";
import type { ToolCallResponseEvent } from "../../src/stream/events.ts";
import { FakeModelServer } from "../../src/testing/fake_model_server.ts";
import { responsesReply, sentOutputs } from "./_responses_reply.ts";

const ROOT = join(import.meta.dirname!, "..", "..");

for (const example of ["ai-sdk", "openai-agents", "langchain"]) {
  Deno.test(`examples/embed/${example}.mjs prints the notice and sends the model the recorded cut`, async () => {
    const workspace = await Deno.makeTempDir();
    const server = FakeModelServer.start([
      responsesReply({ calls: [{ id: "c1", name: "big_log", arguments: { bytes: 1_000_000 } }] }),
      responsesReply({ text: "the workers are ready" }),
    ]);
    try {
      const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", `examples/embed/${example}.mjs`],
        cwd: ROOT,
        env: {
          OPENAI_BASE_URL: `${server.url}/v1`,
          OPENAI_API_KEY: "test",
          SPILLWAY_WORKSPACE: workspace,
          NO_COLOR: "1",
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const out = new TextDecoder().decode(stdout);
      const err = new TextDecoder().decode(stderr);
      assert.equal(code, 0, err);
      assert.ok(
        err.includes("big_log: sent 256.0 KB of 976.5 KB to the assistant (size_threshold)\n"),
        err,
      );
      assert.ok(out.includes("the workers are ready"), out);
      const id = /recorded: conversation (\S+)/.exec(out)?.[1];
      assert.ok(id !== undefined, out);
      const stream = await new FileStreamStore(join(workspace, "conversations")).open(id);
      const { events } = await stream.load();
      await stream.close();
      const response = events.find((e): e is ToolCallResponseEvent =>
        e.type === "tool_call_response"
      );
      assert.equal(server.requests.length, 2);
      const sent = sentOutputs(server.requests[1]!).get("c1");
      assert.equal(sent, response?.content);
      assert.ok(sent?.includes("\n... [truncated, 976.5 KB → 256.0 KB]\n"));
    } finally {
      await server.close();
      await Deno.remove(workspace, { recursive: true });
    }
  });
}
