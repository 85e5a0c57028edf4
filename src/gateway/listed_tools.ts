/**
 * The tools `spillway serve` lists to its clients: every exported tool with
 * its description (the config's, else the source's), input and output
 * schemas, annotations and `_meta` as the source gave them, plus the
 * result-size hint of the limit spillway enforces for it.
 *
 * @module
 */

import type { Tool } from "../service/sdk.ts";
import type { ToolDefinition } from "../service/tool_source.ts";
import { MAX_RESULT_SIZE_META_KEY } from "./result_limit.ts";

/**
 * The MCP `Tool` of `definition`, whose results are limited to `limitBytes`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listedTool } from "./listed_tools.ts";
 * const tool = listedTool(
 *   { name: "grep", description: "Search.", inputSchema: {}, annotations: { readOnlyHint: true } },
 *   { description: undefined, limitBytes: 262_144 },
 * );
 * assert.deepEqual(tool.inputSchema, { type: "object" });
 * assert.equal(tool._meta?.["anthropic/maxResultSizeChars"], 262_144);
 * assert.deepEqual(tool.annotations, { readOnlyHint: true });
 * ```
 */
export function listedTool(
  definition: ToolDefinition,
  options: { readonly description: string | undefined; readonly limitBytes: number },
): Tool {
  const tool: Tool = {
    name: definition.name,
    description: options.description ?? definition.description,
    // MCP requires an object schema; sources may omit the `type`.
    inputSchema: { type: "object", ...definition.inputSchema } as Tool["inputSchema"],
    _meta: { ...definition.meta, [MAX_RESULT_SIZE_META_KEY]: options.limitBytes },
  };
  if (definition.title !== undefined) tool.title = definition.title;
  if (definition.outputSchema !== undefined) {
    tool.outputSchema = { type: "object", ...definition.outputSchema } as Tool["outputSchema"];
  }
  if (definition.annotations !== undefined) {
    tool.annotations = definition.annotations as Tool["annotations"];
  }
  return tool;
}
