/**
 * The shape of a builtin tool: a TypeScript function registered in code on a
 * {@linkcode BuiltinToolSource}, with the JSON Schema it advertises.
 *
 * @module
 */

import type { OutputSink } from "../output_sink.ts";
import type { ToolResult } from "../tool_source.ts";

/** What a builtin tool gets besides its arguments. */
export interface BuiltinToolContext {
  /** Aborts when the call is cancelled; long-running tools should stop early. */
  readonly signal: AbortSignal;
  /** The working directory the source was constructed with (as given, not resolved). */
  readonly cwd: string;
  /**
   * Folders under `cwd` the tool never reaches (`spillway serve`'s
   * workspace), as given. Default: none.
   */
  readonly hidden?: readonly string[];
  /**
   * Whom the call is for (a `spillway serve` client), when it is for one:
   * a tool reading what only some callers may read checks it. Default: none.
   */
  readonly principal?: string;
  /**
   * Where a text too large to hold may go (see {@linkcode OutputCollector}):
   * a tool that reads something large can stream it there and return the
   * collected window. Default: none.
   */
  readonly output?: OutputSink;
  /**
   * Whether a text streamed to `output` is to be scanned as JSON (the
   * tool's truncation is `json` or `auto`; see {@linkcode OutputCollector}).
   * Default: not.
   */
  readonly scansJson?: boolean;
}

/** A tool implemented as a TypeScript function. */
export interface BuiltinTool {
  /** The tool name (`fs_list_files`). */
  readonly name: string;
  /** What the tool does, for the assistant. */
  readonly description: string;
  /** The JSON Schema object of the arguments. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /**
   * Runs the tool. A string is a successful text result; return a
   * {@linkcode ToolResult} with `isError: true` for a failure the assistant
   * should read. A thrown error also becomes an `isError` result.
   */
  run(
    args: Readonly<Record<string, unknown>>,
    context: BuiltinToolContext,
  ): Promise<string | ToolResult>;
}
