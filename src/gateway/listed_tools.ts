/**
 * The tools `spillway serve` lists to its clients: every exported tool with
 * its description (the config's, else the source's), title, input schema,
 * annotations and `_meta` as the source gave them, plus the result-size hint
 * of the limit spillway enforces for it.
 *
 * A tool's output schema is listed as its source gave it. MCP requires a
 * result of such a tool that is not an error to carry `structuredContent`
 * conforming to it (SDK clients reject one without). A result spillway
 * delivers whole keeps the source's `structuredContent`; a cut one cannot
 * (spillway does not cut a JSON value to a schema), so the gateway records
 * and delivers a cut result of such a tool as an error result
 * (`isError: true`, the recorded text with its marker): the client reads
 * the cut text, and no promise of the schema is broken.
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
 *   {
 *     name: "grep",
 *     description: "Search.",
 *     inputSchema: {},
 *     outputSchema: { type: "object" },
 *     annotations: { readOnlyHint: true },
 *   },
 *   { description: undefined, limitBytes: 262_144 },
 * );
 * assert.deepEqual(tool.inputSchema, { type: "object" });
 * assert.deepEqual(tool.outputSchema, { type: "object" });
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
    tool.outputSchema = definition.outputSchema as Tool["outputSchema"];
  }
  if (definition.annotations !== undefined) {
    tool.annotations = definition.annotations as Tool["annotations"];
  }
  return tool;
}
