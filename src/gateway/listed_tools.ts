/**
 * The tools `spillway serve` lists to its clients: every exported tool with
 * its description (the config's, else the source's), title, input schema,
 * annotations and `_meta` as the source gave them, plus the result-size hint
 * of the limit spillway enforces for it.
 *
 * A tool's output schema is not listed. MCP requires a tool that declares
 * one to return `structuredContent` matching it, and SDK clients reject a
 * result without it; but a cut result is rebuilt from its text and loses its
 * `structuredContent` (spillway cannot cut a JSON value to a schema), and the
 * batch ceiling can cut any tool's result. Listing the schema would promise
 * what spillway cannot keep; without it, a cut result reaches the client as
 * the text that was recorded, and an uncut one still carries its
 * `structuredContent`.
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
 * assert.equal(tool.outputSchema, undefined, "a cut result could not keep its promise");
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
  if (definition.annotations !== undefined) {
    tool.annotations = definition.annotations as Tool["annotations"];
  }
  return tool;
}
