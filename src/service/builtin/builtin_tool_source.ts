/**
 * The `builtin` tool source: TypeScript functions registered in code. Each
 * runs in-process with the source's working directory and the call's abort
 * signal; a thrown error becomes an `isError` result (tool failure is data),
 * and an aborted call rejects promptly even when the tool ignores its signal.
 *
 * @module
 */

import { CallDeadline, type CallDeadlineOptions } from "../call_deadline.ts";
import { reasonText } from "../../errors/reason_text.ts";
import type { ToolCallOptions, ToolDefinition, ToolResult, ToolSource } from "../tool_source.ts";
import { unknownToolError } from "../tool_source_faults.ts";
import { SYSTEM_CLOCK, type TimerClock } from "../timer_clock.ts";
import { DEFAULT_TOOL_TIMEOUT_MS, timedOutResult } from "../tool_timeout.ts";
import type { BuiltinTool, BuiltinToolContext } from "./builtin_tool.ts";
import { BUILTIN_TOOLS } from "./builtin_tools.ts";
import { errorResult } from "./_confine.ts";

/** Options of {@linkcode BuiltinToolSource}. */
export interface BuiltinToolSourceOptions {
  /** The working directory the tools are confined to. */
  readonly cwd: string;
  /**
   * Folders under `cwd` the file tools never reach, even through a symlink
   * or `..` (`spillway serve`'s workspace). Default: none.
   */
  readonly hidden?: readonly string[];
  /** The tools to register at construction. Defaults to {@linkcode BUILTIN_TOOLS}. */
  readonly tools?: readonly BuiltinTool[];
  /**
   * How long a call of `tool` may run, in ms (the tool's configured
   * `timeout`). Default: {@linkcode DEFAULT_TOOL_TIMEOUT_MS} for every tool.
   */
  readonly timeoutFor?: (tool: string) => number;
  /** The clock the time limits run on. Default: {@linkcode SYSTEM_CLOCK}. */
  readonly clock?: TimerClock;
  /**
   * Whether an output of `tool` too large to hold is scanned as JSON as it
   * streams (its truncation is `json` or `auto`). Default: no tool's is.
   */
  readonly scansJsonFor?: (tool: string) => boolean;
}

/**
 * Runs builtin tools. A call that outlives its timeout has its signal
 * aborted and is answered at once with the timeout result, whether or not
 * the tool stops.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BuiltinToolSource } from "./builtin_tool_source.ts";
 * const source = new BuiltinToolSource({ cwd: ".", tools: [] });
 * source.register({
 *   name: "echo",
 *   description: "Echo the text back.",
 *   inputSchema: { type: "object", properties: { text: { type: "string" } } },
 *   run: (args) => Promise.resolve(String(args.text)),
 * });
 * const result = await source.call("echo", { text: "hi" }, { signal: new AbortController().signal });
 * assert.deepEqual(result, { content: [{ type: "text", text: "hi" }] });
 * ```
 */
export class BuiltinToolSource implements ToolSource {
  /** Always `"builtin"`. */
  readonly name = "builtin";
  readonly #cwd: string;
  readonly #hidden: readonly string[];
  readonly #tools = new Map<string, BuiltinTool>();
  readonly #timeoutFor: (tool: string) => number;
  /** One options object for every call's deadline. */
  readonly #deadline: CallDeadlineOptions;
  readonly #scansJsonFor: (tool: string) => boolean;

  /**
   * Creates the source and registers `options.tools`.
   *
   * @param options the working directory, the tools (default: the shipped ones) and their timeouts
   */
  constructor(options: BuiltinToolSourceOptions) {
    this.#cwd = options.cwd;
    this.#hidden = options.hidden ?? [];
    this.#timeoutFor = options.timeoutFor ?? (() => DEFAULT_TOOL_TIMEOUT_MS);
    this.#deadline = { clock: options.clock ?? SYSTEM_CLOCK };
    this.#scansJsonFor = options.scansJsonFor ?? (() => false);
    for (const tool of options.tools ?? BUILTIN_TOOLS) this.register(tool);
  }

  /**
   * Adds a tool. Register before the execution service starts: the service
   * lists tools once.
   *
   * @throws {TypeError} when a tool of that name is already registered
   */
  register(tool: BuiltinTool): this {
    if (this.#tools.has(tool.name)) {
      throw new TypeError(`builtin tool \`${tool.name}\` is already registered`);
    }
    this.#tools.set(tool.name, tool);
    return this;
  }

  /** The registered tools' definitions, in registration order. */
  list(): Promise<readonly ToolDefinition[]> {
    return Promise.resolve(
      [...this.#tools.values()].map(({ name, description, inputSchema }) => ({
        name,
        description,
        inputSchema,
      })),
    );
  }

  /**
   * Runs one tool; see {@linkcode ToolSource.call}.
   *
   * @throws {SpillwayError} `tool_unavailable` for a tool that is not registered
   * @throws the signal's reason when `options.signal` aborts
   */
  async call(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    options: ToolCallOptions,
  ): Promise<ToolResult> {
    const { signal } = options;
    signal.throwIfAborted();
    const found = this.#tools.get(tool);
    if (found === undefined) throw unknownToolError(this.name, tool);
    using deadline = new CallDeadline(signal, this.#timeoutFor(tool), this.#deadline);
    let output: string | ToolResult;
    try {
      const context: BuiltinToolContext = {
        signal: deadline.signal,
        cwd: this.#cwd,
        hidden: this.#hidden,
        ...(options.principal === undefined ? {} : { principal: options.principal }),
        ...(options.output === undefined
          ? {}
          : { output: options.output, scansJson: this.#scansJsonFor(tool) }),
      };
      const running = found.run(args, context);
      output = await deadline.race(running);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (deadline.expired) return timedOutResult(deadline.timeoutMs);
      return errorResult(`${tool}: ${reasonText(error)}`);
    }
    return typeof output === "string" ? { content: [{ type: "text", text: output }] } : output;
  }

  /** Nothing to release: builtin tools hold no processes. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
