/**
 * A scripted tool source for the execution-service tests: each tool is a
 * function of its arguments and abort signal, so a test can make a tool
 * answer, fail, hang until cancelled, or lose its source.
 *
 * @module
 */

import type {
  ToolCallOptions,
  ToolDefinition,
  ToolResult,
  ToolSource,
} from "../src/service/tool_source.ts";

/** A scripted tool. */
export type FakeTool = (
  args: Readonly<Record<string, unknown>>,
  signal: AbortSignal,
) => Promise<ToolResult>;

/** A text result. */
export function text(value: string, isError = false): ToolResult {
  return { content: [{ type: "text", text: value }], isError };
}

/** Resolves never; rejects with the signal's reason when it aborts. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** A tool source made of scripted tools. Records calls and whether it was closed. */
export class FakeSource implements ToolSource {
  readonly name: string;
  readonly calls: { tool: string; args: Readonly<Record<string, unknown>> }[] = [];
  closed = false;
  readonly #tools: Readonly<Record<string, FakeTool>>;

  constructor(name: string, tools: Readonly<Record<string, FakeTool>>) {
    this.name = name;
    this.#tools = tools;
  }

  list(): Promise<readonly ToolDefinition[]> {
    return Promise.resolve(
      Object.keys(this.#tools).map((name) => ({
        name,
        description: `fake ${name}`,
        inputSchema: { type: "object" },
      })),
    );
  }

  call(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    options: ToolCallOptions,
  ): Promise<ToolResult> {
    this.calls.push({ tool, args });
    const run = this.#tools[tool];
    if (run === undefined) return Promise.resolve(text(`no tool ${tool}`, true));
    return run(args, options.signal);
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
