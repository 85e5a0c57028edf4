/**
 * Turns an MCP tool result into the response spillway records: the text
 * blocks joined with newlines are the content (what is measured and capped),
 * everything else rides along as `nonText` until the text is cut or replaced.
 * The executor uses the same function on what it received, so a recorded and
 * a delivered result are compared the same way.
 *
 * @module
 */

import type { NonTextContent, ToolCallResponse } from "../review/tool_call_response.ts";
import type { ToolResult } from "./tool_source.ts";

/**
 * The {@linkcode ToolCallResponse} of call `id` for an MCP result.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toToolCallResponse } from "./to_tool_call_response.ts";
 * const image = { type: "image", data: "AA==", mimeType: "image/png" };
 * const response = toToolCallResponse("call_1", {
 *   content: [{ type: "text", text: "a" }, image, { type: "text", text: "b" }],
 * });
 * assert.equal(response.content, "a\nb");
 * assert.equal(response.isError, false);
 * assert.deepEqual(response.nonText, { blocks: [image] });
 * ```
 */
export function toToolCallResponse(id: string, result: ToolResult): ToolCallResponse {
  const texts: string[] = [];
  const blocks: Readonly<Record<string, unknown>>[] = [];
  for (const block of result.content) {
    if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
    else blocks.push(block);
  }
  const content = texts.join("\n");
  const isError = result.isError === true;
  const { structuredContent } = result;
  if (blocks.length === 0 && structuredContent === undefined) return { id, content, isError };
  const nonText: NonTextContent = structuredContent === undefined
    ? { blocks }
    : { blocks, structuredContent };
  return { id, content, isError, nonText };
}
