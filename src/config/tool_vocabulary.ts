/**
 * The words of `[conversation.tools.*]` entries: how a call is run, how its
 * result is handled, how the terminal shows it, and where the tool comes
 * from. Kept in one place so validation, defaults and messages agree on the
 * accepted spellings.
 *
 * @module
 */

/** `run`: whether a call runs without asking, after asking, after editing, or never. */
export type RunMode = "ask" | "unattended" | "edit" | "skip";

/** `result`: whether a result is delivered as is, after asking, after editing, or dropped. */
export type ResultMode = "unattended" | "ask" | "edit" | "skip";

/** `style.inline_results`: how many result lines the terminal shows (`"full"`: all, `"off"`: none). */
export type InlineResults = "off" | "full" | number;

/** `style.results_file_link`: how the terminal links to the full-result file. */
export type ResultsFileLink = "off" | "osc8" | "full";

/** Accepted `run` values, in the order messages list them. */
export const RUN_MODES: readonly RunMode[] = ["ask", "unattended", "edit", "skip"];

/** Accepted `result` values, in the order messages list them. */
export const RESULT_MODES: readonly ResultMode[] = ["unattended", "ask", "edit", "skip"];

/** Accepted `style.results_file_link` values. */
export const RESULTS_FILE_LINKS: readonly ResultsFileLink[] = ["off", "osc8", "full"];

/**
 * Where a configured tool comes from, as `source` spells it: `"builtin"`,
 * `"local"` (an argv `command`), or an upstream MCP server
 * (`"mcp.<server>"`, or `"mcp.<server>.<tool>"` to rename its tool).
 */
export type ToolSourceRef =
  | { readonly kind: "builtin"; readonly text: "builtin" }
  | { readonly kind: "local"; readonly text: "local" }
  | {
    readonly kind: "mcp";
    /** The `source` value as written, e.g. `"mcp.github.search_code"`. */
    readonly text: string;
    /** The `providers.mcp.<server>` name. */
    readonly server: string;
    /** The upstream tool's name: the renamed tool, else the entry's own name. */
    readonly tool: string;
  };

/**
 * Reads a `source` string. `toolName` fills in the upstream tool for
 * `"mcp.<server>"`. Returns `undefined` when the text is not a source.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseToolSourceRef } from "./tool_vocabulary.ts";
 * assert.deepEqual(parseToolSourceRef("mcp.github", "search"), {
 *   kind: "mcp", text: "mcp.github", server: "github", tool: "search",
 * });
 * assert.equal(parseToolSourceRef("remote", "x"), undefined);
 * ```
 */
export function parseToolSourceRef(text: string, toolName: string): ToolSourceRef | undefined {
  if (text === "builtin") return { kind: "builtin", text };
  if (text === "local") return { kind: "local", text };
  const match = /^mcp\.([^.]+)(?:\.(.+))?$/.exec(text);
  if (match === null || match[1] === undefined) return undefined;
  return { kind: "mcp", text, server: match[1], tool: match[2] ?? toolName };
}
