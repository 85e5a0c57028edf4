/**
 * Shared by the tests that run examples/embed/*.mjs (from the checkout
 * under Deno, from the installed package under Node): each example, the
 * loopback fake model it talks to (the Responses API at OPENAI_BASE_URL,
 * or the Messages API at ANTHROPIC_BASE_URL for the Claude Agent SDK), and
 * the check of one run: the notice printed, the model's answer printed,
 * and the model sent exactly the recorded cut.
 *
 * @module
 */

import assert from "node:assert/strict";
import { FakeModelServer } from "../../src/testing/fake_model_server.ts";
import { recordedResponses } from "./_adapter_round.ts";
import { messagesModel, modelCalls, sentResults } from "./_messages_reply.ts";
import { responsesReply, sentOutputs } from "./_responses_reply.ts";

/** The examples, by file name (`examples/embed/<name>.mjs`). */
export const EMBED_EXAMPLES: readonly string[] = [
  "ai-sdk",
  "openai-agents",
  "langchain",
  "mastra",
  "claude-agent-sdk",
];

const ANSWER = "the workers are ready";
const CALL = { id: "c1", name: "big_log", arguments: { bytes: 1_000_000 } };

/** The fake model of one example's run, the variables pointing at it, and what it was sent. */
export interface ExampleModel {
  readonly server: FakeModelServer;
  /** The variables for the example (a CLI keeps its state under `scratch`). */
  readonly env: Record<string, string>;
  /** The model calls made, and what the last one carried as `c1`'s output. */
  sent(): { calls: number; output: string | undefined };
}

/** Starts the fake model `example` talks to; close its `server` after the run. */
export function exampleModel(example: string, scratch: string): ExampleModel {
  if (example === "claude-agent-sdk") {
    const server = messagesModel([CALL], ANSWER);
    return {
      server,
      env: {
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: "test",
        // Claude Code's settings and state there, not in the HOME Deno's cache lives under.
        CLAUDE_CONFIG_DIR: `${scratch}/claude`,
      },
      sent: () => {
        const calls = modelCalls(server);
        return { calls: calls.length, output: sentResults(calls.at(-1)!).get("c1") };
      },
    };
  }
  const server = FakeModelServer.start([
    responsesReply({ calls: [CALL] }),
    responsesReply({ text: ANSWER }),
  ]);
  return {
    server,
    env: { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "test" },
    sent: () => ({
      calls: server.requests.length,
      output: sentOutputs(server.requests.at(-1)!).get("c1"),
    }),
  };
}

/** Checks one run of an example that recorded into `workspace`. */
export async function assertExampleRun(
  model: ExampleModel,
  workspace: string,
  run: { code: number; stdout: string; stderr: string },
): Promise<void> {
  assert.equal(run.code, 0, run.stderr);
  assert.ok(
    run.stderr.includes(
      "big_log: sent 256.0 KB of 976.5 KB to the assistant (size_threshold)\n",
    ),
    run.stderr,
  );
  assert.ok(run.stdout.includes(ANSWER), run.stdout);
  const id = /recorded: conversation (\S+)/.exec(run.stdout)?.[1];
  assert.ok(id !== undefined, run.stdout);
  const { calls, output } = model.sent();
  assert.equal(calls, 2);
  assert.equal(output, (await recordedResponses(workspace, id)).get("c1"));
  assert.ok(output?.includes("\n... [truncated, 976.5 KB → 256.0 KB]\n"));
}
