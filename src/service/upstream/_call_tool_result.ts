/**
 * Reading an upstream server's `tools/call` answer: the result as spillway's
 * {@linkcode ToolResult}, or a one-line account of why the SDK refused it.
 *
 * @module
 */

import type { ToolResult } from "../tool_source.ts";

/** Converts the SDK's result (current or legacy `toolResult` shape) to a {@linkcode ToolResult}. */
export function toToolResult(result: unknown): ToolResult {
  if (!isRecord(result)) throw new TypeError("upstream tools/call result is not an object");
  if (Array.isArray(result.content)) {
    const { structuredContent, isError } = result;
    return {
      content: result.content.filter(isRecord),
      ...(isRecord(structuredContent) ? { structuredContent } : {}),
      ...(typeof isError === "boolean" ? { isError } : {}),
    };
  }
  if ("toolResult" in result) {
    return { content: [{ type: "text", text: JSON.stringify(result.toolResult) ?? "" }] };
  }
  throw new TypeError("upstream tools/call result has no content");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The schema violations of a result the SDK refused (a zod error), as one line. */
export function describeInvalidResult(error: unknown): string | undefined {
  if (!isRecord(error) || !Array.isArray(error.issues)) return undefined;
  return error.issues.filter(isRecord).map((issue) => {
    const path = Array.isArray(issue.path) ? issue.path.join(".") : "";
    return `${path === "" ? "(result)" : path}: ${String(issue.message)}`;
  }).join("; ");
}
