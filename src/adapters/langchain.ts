/**
 * spillway in LangChain.js (`langchain` 1.5): an agent middleware for
 * `createAgent`. Its `wrapToolCall` runs around each tool call: it lets
 * the tool run, caps, spills and records the `ToolMessage`'s text, and
 * returns the message holding the recorded text, which the agent keeps in
 * its state and sends to the model. The hook shows one call, never the
 * step: the 2 MiB ceiling holds per call (docs/adapters.md). A tool that
 * answers with a `Command` instead of a message is passed as it is.
 * Imports LangChain's types only.
 *
 * ```js ignore
 * import { createAgent } from "langchain";
 * import { spillwayAgentMiddleware } from "spillway/langchain";
 * const agent = createAgent({ model, tools, middleware: [await spillwayAgentMiddleware()] });
 * ```
 *
 * @module
 */

import type { AgentMiddleware, ToolMessage } from "langchain";
import { ToolOutputCap, type ToolOutputCapOptions } from "./tool_output_cap.ts";

/** The middleware and the cap it records with. */
export type SpillwayAgentMiddleware = AgentMiddleware & {
  /** The cap: its conversation id, `readOutput` for spilled outputs, `close()`. */
  readonly cap: ToolOutputCap;
};

/** What `createMiddleware` marks a middleware with (`Symbol.for`: no import of LangChain needed). */
const MIDDLEWARE_BRAND = Symbol.for("AgentMiddleware");

/**
 * An agent middleware that caps, records and spills each tool result.
 * Close `middleware.cap` when done.
 *
 * @param options the cap's options (configuration, store, notices)
 * @throws {SpillwayError} from the agent's run, `store_failed`, when a result could not be
 *   recorded: the model is not sent it
 */
export async function spillwayAgentMiddleware(
  options: ToolOutputCapOptions = {},
): Promise<SpillwayAgentMiddleware> {
  const cap = await ToolOutputCap.open(options);
  const middleware = {
    [MIDDLEWARE_BRAND]: true,
    name: "spillway",
    cap,
    wrapToolCall: async (
      request: { toolCall: { name: string; id?: string | undefined; args: unknown } },
      handler: (request: never) => Promise<unknown> | unknown,
    ) => {
      const result = await handler(request as never);
      if (!isToolMessage(result)) return result;
      const { toolCall } = request;
      const [recorded] = await cap.capStep([{
        name: toolCall.name,
        callId: toolCall.id ?? result.tool_call_id,
        arguments: isRecord(toolCall.args) ? toolCall.args : {},
        output: textOf(result.content),
        isError: result.status === "error",
      }]);
      result.content = recorded!.text;
      return result;
    },
  };
  // The hook's own types are generic over the agent's state; this one works for every state.
  return middleware as unknown as SpillwayAgentMiddleware;
}

function isToolMessage(value: unknown): value is ToolMessage {
  return isRecord(value) && "tool_call_id" in value && "content" in value;
}

/** A message content's text: a string as is, text blocks joined, anything else as JSON. */
function textOf(content: ToolMessage["content"]): unknown {
  if (typeof content === "string") return content;
  if (content.every((block) => block.type === "text" && typeof block.text === "string")) {
    return content.map((block) => block.text).join("");
  }
  return content;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
