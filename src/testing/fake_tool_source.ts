/**
 * A scripted tool source: each tool is a function of its arguments and abort
 * signal, so a test can make a tool answer, fail, hang until cancelled, or
 * lose its source (throw a `ToolLostError`). It records every call and
 * whether it was closed. Pass it to `createRuntime({ toolSources })` to test
 * an embedding application without processes or servers.
 *
 * @module
 */

import type {
  ToolCallOptions,
  ToolDefinition,
  ToolResult,
  ToolSource,
} from "../service/tool_source.ts";
import { unknownToolError } from "../service/tool_source_faults.ts";
import { Milestones } from "./tool_source_contract.ts";

/** A scripted tool: its arguments and signal in, an MCP result out. */
export type FakeTool = (
  args: Readonly<Record<string, unknown>>,
  signal: AbortSignal,
) => Promise<ToolResult>;

/**
 * A text result.
 *
 * @param value the text content
 * @param isError whether the tool reports a failure; default `false`
 */
export function text(value: string, isError = false): ToolResult {
  return { content: [{ type: "text", text: value }], isError };
}

/** Never resolves; rejects with the signal's reason once it aborts (a tool that hangs). */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/**
 * A tool source made of scripted tools.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeToolSource, text } from "./fake_tool_source.ts";
 * const source = new FakeToolSource("fake", { hello: () => Promise.resolve(text("hi")) });
 * assert.deepEqual(
 *   await source.call("hello", {}, { signal: new AbortController().signal }),
 *   { content: [{ type: "text", text: "hi" }], isError: false },
 * );
 * assert.deepEqual(source.calls, [{ tool: "hello", args: {} }]);
 * ```
 */
export class FakeToolSource implements ToolSource {
  /** The source's name (e.g. `"fake"`). */
  readonly name: string;
  /** Every call, in call order. */
  readonly calls: { tool: string; args: Readonly<Record<string, unknown>> }[] = [];
  /** Counts the calls that reached the source: `arrived.reached(n)` waits for the n-th. */
  readonly arrived: Milestones = new Milestones();
  /** Whether {@linkcode close} was called. */
  closed = false;
  readonly #tools: Readonly<Record<string, FakeTool>>;

  /**
   * A source named `name` with `tools`.
   *
   * @param name the source's name
   * @param tools the scripted tools by name
   */
  constructor(name: string, tools: Readonly<Record<string, FakeTool>>) {
    this.name = name;
    this.#tools = tools;
  }

  /** Lists the scripted tools (description `fake <name>`, any object as arguments). */
  list(): Promise<readonly ToolDefinition[]> {
    return Promise.resolve(
      Object.keys(this.#tools).map((name) => ({
        name,
        description: `fake ${name}`,
        inputSchema: { type: "object" },
      })),
    );
  }

  /**
   * Runs a scripted tool; an unknown one is refused as every source refuses
   * it (`tool_unavailable`, "<name> has no tool `<tool>`").
   */
  call(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    options: ToolCallOptions,
  ): Promise<ToolResult> {
    this.calls.push({ tool, args });
    this.arrived.add();
    const run = this.#tools[tool];
    if (run === undefined) return Promise.reject(unknownToolError(this.name, tool));
    return run(args, options.signal);
  }

  /** Marks the source closed. */
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
