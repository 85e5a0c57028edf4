/**
 * Private helper of the model providers: a tool call as the model streamed
 * it (id, name, arguments as JSON text) made into the call a turn records.
 * Arguments that are not a JSON object do not fail the answer: the call
 * keeps their text in `invalidArguments`, and the turn answers it with an
 * error the model can read: one that says the output limit cut them when
 * the answer stopped there.
 *
 * @module
 */

import { readCallArguments } from "../review/read_call_arguments.ts";
import type { ToolCall } from "../review/tool_call.ts";

/**
 * The call `head` with the arguments read from `text`; `outputLimit` when
 * the answer stopped at the model's output limit right after this call.
 */
export function toolCallOf(
  head: { id: string; name: string },
  text: string,
  outputLimit?: ToolCall["outputLimit"],
): ToolCall {
  const read = readCallArguments(text);
  if (read.problem === undefined) {
    return { id: head.id, name: head.name, arguments: read.arguments };
  }
  return {
    id: head.id,
    name: head.name,
    arguments: {},
    invalidArguments: text,
    ...(outputLimit === undefined ? {} : { outputLimit }),
  };
}
