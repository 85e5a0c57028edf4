/**
 * The faults every tool source reports in the same words: a call to a tool
 * the source does not have, and a result the source cannot use. Both are
 * runtime faults (`SpillwayError`s), not tool failures: the service parks
 * such a call as `failed`, and the Host records "tool call failed: …" with
 * the message, which names the source and the tool.
 *
 * @module
 */

import { SpillwayError } from "../errors/spillway_error.ts";

/**
 * `mcp.github has no tool \`serch\``: the source was asked for a tool it
 * does not list (a stale route, or a server that changed its tools).
 *
 * @param source the source's name (`"builtin"`, `"local"`, `"mcp.github"`)
 * @param tool the tool's name inside the source
 * @returns a `tool_unavailable` error naming both
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unknownToolError } from "./tool_source_faults.ts";
 * const error = unknownToolError("local", "cargo_tset");
 * assert.equal(error.code, "tool_unavailable");
 * assert.equal(error.message, "local has no tool `cargo_tset`");
 * ```
 */
export function unknownToolError(source: string, tool: string): SpillwayError {
  return new SpillwayError("tool_unavailable", `${source} has no tool \`${tool}\``, {
    source,
    tool,
  });
}

/**
 * `mcp.github returned a malformed result for \`search\`: content: expected
 * array`: what the tool sent is not a valid MCP `tools/call` result (or, from
 * an upstream server, not a readable reply at all).
 *
 * @param source the source's name
 * @param tool the tool's name inside the source
 * @param flaw what is wrong with it, one line
 * @returns a `malformed_result` error naming the source, the tool and the flaw
 */
export function malformedResultError(source: string, tool: string, flaw: string): SpillwayError {
  return new SpillwayError(
    "malformed_result",
    `${source} returned a malformed result for \`${tool}\`: ${flaw}`,
    { source, tool },
  );
}

/**
 * The schema violations of a refused result (a zod error's `issues`), as
 * one line: `content: expected array, received string; isError: …`.
 *
 * @param issues the validation issues
 * @returns `path: message` pairs joined with `; `
 */
export function describeIssues(
  issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[],
): string {
  return issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    return `${path === "" ? "(result)" : path}: ${issue.message}`;
  }).join("; ");
}
