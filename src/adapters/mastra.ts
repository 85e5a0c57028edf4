/**
 * spillway in Mastra (`@mastra/core` 1.71): an input processor. Its
 * `processInputStep` runs before every model call of the agent's loop and
 * holds the agent's message list, so the tool results the last step added
 * (all of them: the step is the set of results not recorded before) are
 * capped together, recorded and flushed, and each is replaced in the list
 * (`messageList.updateToolInvocation`) by its recorded text, which is then
 * what the model is sent and what memory keeps. Imports Mastra's types
 * only.
 *
 * ```js ignore
 * import { Agent } from "@mastra/core/agent";
 * import { spillwayProcessor } from "spillway/mastra";
 * const spillway = await spillwayProcessor();
 * const agent = new Agent({ …, tools: { big_log, read_tool_output: spillway.readToolOutput },
 *   inputProcessors: [spillway] });
 * ```
 *
 * @module
 */

import type { MessageList } from "@mastra/core/agent";
import type { InputProcessor } from "@mastra/core/processors";
import type { ToolAction } from "@mastra/core/tools";
import { type ReadToolOutputInput, readToolOutputTool } from "./_read_tool_output.ts";
import { type ToolOutput, ToolOutputCap, type ToolOutputCapOptions } from "./tool_output_cap.ts";

export type { ReadToolOutputInput } from "./_read_tool_output.ts";

/** The processor and the cap it records with. */
export type SpillwayProcessor = InputProcessor & {
  /** The cap: its conversation id, `readOutput` for spilled outputs, `close()`. */
  readonly cap: ToolOutputCap;
  /**
   * A tool for `tools: { read_tool_output: spillway.readToolOutput }`: the model pages through a
   * spilled output by the `ref` its cut names.
   */
  readonly readToolOutput: ToolAction<ReadToolOutputInput, string>;
};

type DbMessage = ReturnType<MessageList["get"]["all"]["db"]>[number];
type Part = DbMessage["content"]["parts"][number];
type InvocationPart = Extract<Part, { type: "tool-invocation" }>;

/**
 * An input processor (for an `Agent`'s `inputProcessors`) that caps,
 * records and spills the tool results each model call is sent. Close
 * `spillway.cap` when done.
 *
 * @param options the cap's options (configuration, store, notices)
 * @throws {SpillwayError} from `generate`/`stream`, `store_failed`, when a step's results could not
 *   be recorded: the model is not called
 */
export async function spillwayProcessor(
  options: ToolOutputCapOptions = {},
): Promise<SpillwayProcessor> {
  const cap = await ToolOutputCap.open(options);
  /** The call ids recorded: their results in the list are the recorded texts already. */
  const recorded = new Set<string>();
  const processor: InputProcessor = {
    id: "spillway",
    name: "spillway",
    processInputStep: async ({ messageList }) => {
      const fresh = freshResults(messageList.get.all.db(), recorded);
      if (fresh.length === 0) return messageList;
      const outputs = await cap.capStep(fresh.map(({ output }) => output));
      for (const [i, out] of outputs.entries()) {
        const { part } = fresh[i]!;
        messageList.updateToolInvocation({
          ...part,
          toolInvocation: { ...part.toolInvocation, state: "result", result: out.text },
        });
        recorded.add(out.callId);
      }
      return messageList;
    },
  };
  return {
    ...processor,
    cap,
    readToolOutput: readToolOutputTool<ToolAction<ReadToolOutputInput, string>>(cap),
  } as SpillwayProcessor;
}

/** The list's tool results not recorded yet, with the parts that hold them. */
function freshResults(
  messages: readonly DbMessage[],
  recorded: ReadonlySet<string>,
): { part: InvocationPart; output: ToolOutput }[] {
  const fresh: { part: InvocationPart; output: ToolOutput }[] = [];
  for (const message of messages) {
    for (const part of message.content.parts ?? []) {
      if (part.type !== "tool-invocation") continue;
      const call = part.toolInvocation;
      if (call.state !== "result" || recorded.has(call.toolCallId)) continue;
      fresh.push({
        part,
        output: {
          name: call.toolName,
          callId: call.toolCallId,
          arguments: isRecord(call.args) ? call.args : {},
          output: call.result,
        },
      });
    }
  }
  return fresh;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
