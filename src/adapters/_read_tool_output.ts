/**
 * The `read_tool_output` tool the AI SDK and Mastra adapters hand the
 * builder: a tool in the AI SDK's shape (a `jsonSchema()`-branded input
 * schema and `execute`), which both frameworks run, paging through a
 * spilled output by the `ref` its cut names. Built without importing
 * either framework.
 *
 * @module
 */

import type { ToolOutputCap } from "./tool_output_cap.ts";

/** The arguments of the `read_tool_output` tool. */
export interface ReadToolOutputInput {
  /** The output's reference, as its cut names it. */
  readonly ref: string;
  /** First byte of the page. Default 0. */
  readonly offset?: number;
  /** Bytes in the page. Default 65,536. */
  readonly length?: number;
}

/** What `jsonSchema()` of the AI SDK marks a schema with (`Symbol.for`: no import of `ai` needed). */
const SCHEMA_BRAND = Symbol.for("vercel.ai.schema");

const READ_TOOL_OUTPUT_SCHEMA = {
  type: "object",
  properties: {
    ref: { type: "string", description: 'The output\'s reference, "sha256:" and 64 hex digits.' },
    offset: { type: "integer", minimum: 0, description: "First byte of the page (default 0)." },
    length: { type: "integer", minimum: 0, description: "Bytes in the page (default 65536)." },
  },
  required: ["ref"],
  additionalProperties: false,
} as const;

/** The tool over `cap`'s spilled outputs, as the framework's own tool type `T`. */
export function readToolOutputTool<T>(cap: ToolOutputCap): T {
  return {
    description: "Read the whole output of an earlier tool call that was cut. A cut output names " +
      'it on the line after its truncation marker: ... [full output: read_tool_output ref="sha256:…" ' +
      "(N bytes)]. Pass that ref with a byte offset and length to get those bytes of the output.",
    inputSchema: {
      [SCHEMA_BRAND]: true,
      _type: undefined,
      jsonSchema: READ_TOOL_OUTPUT_SCHEMA,
      validate: undefined,
    },
    execute: async ({ ref, offset = 0, length = 64 * 1024 }: ReadToolOutputInput) =>
      await cap.readOutput(ref, offset, length) ??
        `read_tool_output: no output ${JSON.stringify(ref)} (pass the ref a cut output names)`,
  } as unknown as T;
}
