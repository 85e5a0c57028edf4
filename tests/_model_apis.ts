/**
 * What the model-query tests need to know about each API family, so one
 * test body runs against both: how to script an answer and an error on the
 * fake server, the `--cfg` that points spillway at it, and how to read the
 * tool results, tool names and messages back out of a recorded request.
 * Also the workspace those tests run in (a local tool with a 64KB threshold
 * and one without a threshold) and a reader for its stream.
 *
 * @module
 */

import { main } from "../src/cli.ts";
import { captureCommandIo } from "../src/commands/command_io.ts";
import type { StreamEvent } from "../src/stream/events.ts";
import { anthropicAnswer, anthropicError } from "../src/testing/anthropic_wire.ts";
import {
  FakeModelServer,
  type FakeReply,
  type RecordedRequest,
} from "../src/testing/fake_model_server.ts";
import { openAiAnswer, openAiError, type WireAnswer } from "../src/testing/openai_wire.ts";
import { eventsOf, REPO, workspaceWith } from "./_cli.ts";

/** A tool result as a request carried it. */
export interface SentResult {
  readonly id: string;
  readonly content: string;
}

/** One API family, as the tests drive it. */
export interface ModelApi {
  readonly name: "openai" | "anthropic";
  /** The key variable and a key for it. */
  readonly keyEnv: string;
  answer(answer: WireAnswer, options?: { hold?: boolean }): FakeReply;
  rateLimited(): FakeReply;
  unauthorized(): FakeReply;
  contextWindow(): FakeReply;
  /** `--cfg` pointing the family at the fake server. */
  baseUrlCfg(server: FakeModelServer): string;
  /** The tool results a request carried, in order. */
  toolResults(request: RecordedRequest): SentResult[];
  /** The names of the tools a request offered. */
  toolNames(request: RecordedRequest): string[];
  /** The text of each user prompt a request carried, in order (tool results excluded). */
  prompts(request: RecordedRequest): string[];
}

type Json = Record<string, unknown>;
const messagesOf = (request: RecordedRequest) => request.body["messages"] as Json[];

export const OPENAI: ModelApi = {
  name: "openai",
  keyEnv: "OPENAI_API_KEY",
  answer: openAiAnswer,
  rateLimited: () =>
    openAiError(429, "Rate limit reached for test-model", {
      type: "requests",
      code: "rate_limit_exceeded",
      headers: { "retry-after": "0" },
    }),
  unauthorized: () =>
    openAiError(401, "Incorrect API key provided: sk-test.", { code: "invalid_api_key" }),
  contextWindow: () =>
    openAiError(
      400,
      "This model's maximum context length is 8192 tokens. However, your messages resulted in 19321 tokens. Please reduce the length of the messages.",
      { code: "context_length_exceeded" },
    ),
  baseUrlCfg: (server) => `providers.llm.openai.base_url=${server.url}/v1`,
  toolResults: (request) =>
    messagesOf(request).filter((m) => m["role"] === "tool").map((m) => ({
      id: m["tool_call_id"] as string,
      content: m["content"] as string,
    })),
  toolNames: (request) =>
    (request.body["tools"] as Json[]).map((t) => (t["function"] as Json)["name"] as string),
  prompts: (request) =>
    messagesOf(request).filter((m) => m["role"] === "user").map((m) => m["content"] as string),
};

export const ANTHROPIC: ModelApi = {
  name: "anthropic",
  keyEnv: "ANTHROPIC_API_KEY",
  answer: anthropicAnswer,
  // This client reads a zero Retry-After as no advice; a millisecond is advice.
  rateLimited: () =>
    anthropicError(429, "rate_limit_error", "Number of requests has exceeded your rate limit", {
      "retry-after": "0.001",
    }),
  unauthorized: () => anthropicError(401, "authentication_error", "invalid x-api-key"),
  contextWindow: () =>
    anthropicError(
      400,
      "invalid_request_error",
      "prompt is too long: 215311 tokens > 200000 maximum",
    ),
  baseUrlCfg: (server) => `providers.llm.anthropic.base_url=${server.url}`,
  toolResults: (request) =>
    messagesOf(request).flatMap((m) =>
      Array.isArray(m["content"])
        ? (m["content"] as Json[]).filter((b) => b["type"] === "tool_result").map((b) => ({
          id: b["tool_use_id"] as string,
          content: b["content"] as string,
        }))
        : []
    ),
  toolNames: (request) => (request.body["tools"] as Json[]).map((t) => t["name"] as string),
  prompts: (request) =>
    messagesOf(request).filter((m) => m["role"] === "user").flatMap((m) =>
      (m["content"] as Json[]).filter((b) => b["type"] === "text").map((b) => b["text"] as string)
    ),
};

/** Both families. */
export const APIS: readonly ModelApi[] = [OPENAI, ANTHROPIC];

/** A temporary workspace whose config has the test tools (run by this Deno). */
export function modelWorkspace(): Promise<string> {
  const deno = JSON.stringify(Deno.execPath());
  return workspaceWith(
    `[conversation.tools.noisy_test_run]
source = "local"
command = [${deno}, "run", "examples/tools/noisy_test_run.ts"]
size_threshold = "64KB"
description = "Runs the test suite; prints a long log."

[conversation.tools.unbounded_test_run]
source = "local"
command = [${deno}, "run", "examples/tools/noisy_test_run.ts"]
size_threshold = "unlimited"
`,
  );
}

/** Runs `fn` with a fresh fake server and model workspace, both removed after. */
export async function withFake(
  fn: (server: FakeModelServer, workspace: string) => Promise<void>,
): Promise<void> {
  const server = FakeModelServer.start();
  const workspace = await modelWorkspace();
  try {
    await fn(server, workspace);
  } finally {
    await server.close();
    await Deno.remove(workspace, { recursive: true });
  }
}

/** What one in-process `spillway query` did. */
export interface QueryRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `spillway query` in-process against `server`, from the repository root. */
export async function queryModel(
  api: ModelApi,
  server: FakeModelServer,
  workspace: string,
  ...args: string[]
): Promise<QueryRun> {
  const io = captureCommandIo({ cwd: REPO, env: { [api.keyEnv]: "sk-test" } });
  const code = await main([
    "query",
    "--workspace",
    workspace,
    "--model",
    `${api.name}/test-model`,
    "--cfg",
    api.baseUrlCfg(server),
    ...args,
  ], io);
  return { code, stdout: io.out(), stderr: io.err() };
}

/** The events of a conversation, as recorded, typed as the stream's events. */
export async function recordedEvents(workspace: string, id: string): Promise<StreamEvent[]> {
  return (await eventsOf(workspace, id)) as unknown as StreamEvent[];
}
