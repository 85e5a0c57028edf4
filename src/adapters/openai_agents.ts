/**
 * spillway in the OpenAI Agents SDK (`@openai/agents` 0.20): a tool output
 * guardrail. The runner calls it with each function tool's output before
 * the output becomes the call's `function_call_output`; it caps, spills and
 * records the output, then answers `rejectContent` with the recorded text,
 * which the runner sends in its place. The runner shows a guardrail one
 * call, never the step: the 2 MiB ceiling holds per call here, not over a
 * step's calls (docs/adapters.md). Imports the SDK's types only.
 *
 * ```js ignore
 * import { Agent, tool } from "@openai/agents";
 * import { spillwayGuardrail } from "spillway/openai-agents";
 * const guardrail = await spillwayGuardrail();
 * const bigLog = tool({ name: "big_log", …, outputGuardrails: [guardrail] });
 * ```
 *
 * @module
 */

import type { ToolOutputGuardrailDefinition } from "@openai/agents";
import { ToolOutputCap, type ToolOutputCapOptions } from "./tool_output_cap.ts";

/** The guardrail and the cap it records with. */
export type SpillwayGuardrail<TContext = unknown> = ToolOutputGuardrailDefinition<TContext> & {
  /** The cap: its conversation id, `readOutput` for spilled outputs, `close()`. */
  readonly cap: ToolOutputCap;
};

/**
 * A tool output guardrail (for a tool's `outputGuardrails`, or an MCP
 * server's `toolOutputGuardrails`) that caps, records and spills each
 * output. Close `guardrail.cap` when done.
 *
 * @param options the cap's options (configuration, store, notices)
 * @throws {SpillwayError} from the run, `store_failed`, when an output could not be recorded:
 *   the model is not sent it
 */
export async function spillwayGuardrail<TContext = unknown>(
  options: ToolOutputCapOptions = {},
): Promise<SpillwayGuardrail<TContext>> {
  const cap = await ToolOutputCap.open(options);
  return {
    type: "tool_output",
    name: "spillway",
    cap,
    run: async ({ toolCall, output }) => {
      const [recorded] = await cap.capStep([{
        name: toolCall.name,
        callId: toolCall.callId,
        arguments: parseArguments(toolCall.arguments),
        output,
      }]);
      return {
        behavior: { type: "rejectContent", message: recorded!.text },
        outputInfo: { truncated: recorded!.truncated, ref: recorded!.ref },
      };
    },
  };
}

/** The call's arguments as a record (`{}` when they are not a JSON object). */
function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? value as Record<string, unknown>
      : {};
  } catch {
    return {};
  }
}
