/**
 * spillway in the AI SDK (`ai` 7): a language model middleware. Its
 * `transformParams` sees every prompt on its way to the provider, so the
 * tool results the last step added (all of them: the step is the set of
 * results not sent before) are capped together, recorded and flushed, and
 * the prompt carries the recorded texts instead. Results sent before are
 * replaced by their recorded texts again on every later call, so what the
 * model is sent stays what was recorded. Imports the AI SDK's types only.
 *
 * ```js ignore
 * import { generateText, wrapLanguageModel } from "ai";
 * import { spillwayMiddleware } from "spillway/ai-sdk";
 * const model = wrapLanguageModel({ model: openai("gpt-5"), middleware: await spillwayMiddleware() });
 * ```
 *
 * @module
 */

import type { LanguageModelMiddleware, Tool } from "ai";
import { type ReadToolOutputInput, readToolOutputTool } from "./_read_tool_output.ts";
import {
  type CappedOutput,
  type ToolOutput,
  ToolOutputCap,
  type ToolOutputCapOptions,
} from "./tool_output_cap.ts";

export type { ReadToolOutputInput } from "./_read_tool_output.ts";

type TransformParams = NonNullable<LanguageModelMiddleware["transformParams"]>;
type CallOptions = Parameters<TransformParams>[0]["params"];
type PromptMessage = CallOptions["prompt"][number];
type ToolMessage = Extract<PromptMessage, { role: "tool" }>;
type ToolPart = ToolMessage["content"][number];
type ResultPart = Extract<ToolPart, { type: "tool-result" }>;

/** The middleware and the cap it records with. */
export type SpillwayMiddleware = LanguageModelMiddleware & {
  /** The cap: its conversation id, `readOutput` for spilled outputs, `close()`. */
  readonly cap: ToolOutputCap;
  /**
   * A tool for `tools: { read_tool_output: middleware.readToolOutput }`: the model pages
   * through a spilled output by the `ref` its cut names.
   */
  readonly readToolOutput: Tool<ReadToolOutputInput, string>;
};

/**
 * A middleware for `wrapLanguageModel` that caps, records and spills the
 * tool results a model is sent. Close `middleware.cap` when done.
 *
 * @param options the cap's options (configuration, store, notices)
 * @throws {SpillwayError} from a model call, `store_failed`, when a step's results could not be
 *   recorded: the model is not called
 */
export async function spillwayMiddleware(
  options: ToolOutputCapOptions = {},
): Promise<SpillwayMiddleware> {
  const cap = await ToolOutputCap.open(options);
  const recorded = new Map<string, CappedOutput>();
  const readToolOutput = readToolOutputTool<Tool<ReadToolOutputInput, string>>(cap);
  return {
    specificationVersion: "v4",
    cap,
    readToolOutput,
    transformParams: async ({ params }) => {
      const fresh = freshResults(params.prompt, recorded);
      if (fresh.length > 0) {
        for (const out of await cap.capStep(fresh)) recorded.set(out.callId, out);
      }
      if (recorded.size === 0) return params;
      return { ...params, prompt: params.prompt.map((m) => withRecorded(m, recorded)) };
    },
  };
}

/** The prompt's tool results not recorded yet, with their calls' arguments. */
function freshResults(
  prompt: CallOptions["prompt"],
  recorded: ReadonlyMap<string, CappedOutput>,
): ToolOutput[] {
  const inputs = new Map<string, unknown>();
  const fresh: ToolOutput[] = [];
  for (const message of prompt) {
    if (message.role === "assistant") {
      for (const part of message.content) {
        if (part.type === "tool-call") inputs.set(part.toolCallId, part.input);
      }
    }
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "tool-result" || recorded.has(part.toolCallId)) continue;
      const output = outputOf(part);
      if (output === undefined) continue;
      const input = inputs.get(part.toolCallId);
      fresh.push({
        name: part.toolName,
        callId: part.toolCallId,
        arguments: isRecord(input) ? input : {},
        output: output.value,
        isError: output.isError,
      });
    }
  }
  return fresh;
}

/** A result's value, when it is one spillway caps (text or JSON). */
function outputOf(part: ResultPart): { value: unknown; isError: boolean } | undefined {
  const { output } = part;
  switch (output.type) {
    case "text":
    case "json":
      return { value: output.value, isError: false };
    case "error-text":
    case "error-json":
      return { value: output.value, isError: true };
    default:
      return undefined;
  }
}

/** `message` with each recorded result replaced by its recorded text. */
function withRecorded(
  message: PromptMessage,
  recorded: ReadonlyMap<string, CappedOutput>,
): PromptMessage {
  if (message.role !== "tool") return message;
  const content = message.content.map((part): ToolPart => {
    if (part.type !== "tool-result") return part;
    const out = recorded.get(part.toolCallId);
    if (out === undefined) return part;
    const isError = part.output.type === "error-text" || part.output.type === "error-json";
    return { ...part, output: { type: isError ? "error-text" : "text", value: out.text } };
  });
  return { ...message, content };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
