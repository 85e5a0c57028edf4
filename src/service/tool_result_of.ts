/**
 * An MCP `CallToolResult` as a {@linkcode ToolResult}: what the review layer
 * cuts and records. Since MCP 2026-07-28 a result's `structuredContent` may
 * be any JSON value; spillway's record and caps (and every 2025-11-25 client)
 * take an object, so a value that is not one is carried as `{ result: value }`,
 * the shape the MCP SDK itself gives it for 2025 peers. Recorded and
 * delivered stay one value: the wrapped one.
 *
 * @module
 */

import type { CallToolResult } from "./sdk.ts";
import type { ToolResult } from "./tool_source.ts";

/** A `CallToolResult` whose `structuredContent`, if any, is an object. */
export type ObjectToolResult = CallToolResult & ToolResult;

/** `result` with an object (or no) `structuredContent`. */
export function toolResultOf(result: CallToolResult): ObjectToolResult {
  const { structuredContent } = result;
  if (structuredContent === undefined || isObject(structuredContent)) {
    return result as ObjectToolResult;
  }
  return { ...result, structuredContent: { result: structuredContent } };
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
