/**
 * Private helper of the model providers: a tool call as the model streamed
 * it (id, name, arguments as JSON text) made into the call a turn records.
 * Arguments that are not a JSON object do not fail the answer: the call
 * keeps their text in `invalidArguments`, and the turn answers it with an
 * error the model can read.
 *
 * @module
 */

import { readCallArguments } from "../review/read_call_arguments.ts";
import type { ToolCall } from "../review/tool_call.ts";

/** The call `head` with the arguments read from `text`. */
export function toolCallOf(head: { id: string; name: string }, text: string): ToolCall {
  const read = readCallArguments(text);
  return read.problem === undefined
    ? { id: head.id, name: head.name, arguments: read.arguments }
    : { id: head.id, name: head.name, arguments: {}, invalidArguments: text };
}
