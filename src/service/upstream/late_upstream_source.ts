/**
 * An upstream server that may be down when `spillway serve` starts, or go
 * down later, without stopping the gateway: a tool source around the
 * server's own ({@linkcode McpUpstreamSource}, whose connection restarts
 * in the background) whose listing never fails. While the server does not
 * answer, it lists the tools it last listed (none before its first answer)
 * and says why it is down ({@linkcode down}); once the server answers, its
 * connection says its tools changed, the tool table lists them again, and
 * they are served.
 *
 * Reports go to `report`: one line when the server goes down (or does not
 * come up), one when it answers again.
 *
 * @module
 */

import { reasonText } from "../../errors/reason_text.ts";
import type { ToolCallOptions, ToolDefinition, ToolResult, ToolSource } from "../tool_source.ts";

/** A tool source whose failed listing is reported and served as its last listing. */
export class LateUpstreamSource implements ToolSource {
  /** The source name, `"mcp.<server>"`. */
  readonly name: string;
  readonly #inner: ToolSource;
  readonly #report: (message: string) => void;
  #tools: readonly ToolDefinition[] = [];
  #down: string | undefined;

  /**
   * @param inner the server's own source (restarting in the background)
   * @param report where a line says that it went down or answers again
   */
  constructor(inner: ToolSource, report: (message: string) => void) {
    this.name = inner.name;
    this.#inner = inner;
    this.#report = report;
  }

  /**
   * Why the server does not answer (its last failed start, as the error
   * said it: `cannot start upstream server mcp.x: it did not answer
   * initialize within 30 s`), or `undefined` while it answers.
   */
  get down(): string | undefined {
    return this.#down;
  }

  /** The server's tools; while it is down, those it last listed (none before it answered). */
  async list(): Promise<readonly ToolDefinition[]> {
    try {
      this.#tools = await this.#inner.list();
    } catch (error) {
      const why = reasonText(error);
      if (this.#down !== why) {
        this.#down = why;
        this.#report(
          `${why}; spillway serve goes on without its tools and starts it again in the background`,
        );
      }
      return this.#tools;
    }
    if (this.#down !== undefined) {
      this.#down = undefined;
      this.#report(
        `upstream server ${this.name} answers now: ${plural(this.#tools.length)} served`,
      );
    }
    return this.#tools;
  }

  /** Calls the server's tool (a server that is down fails the call, saying why). */
  call(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    options: ToolCallOptions,
  ): Promise<ToolResult> {
    return this.#inner.call(tool, args, options);
  }

  /** Calls `listener` when the server's tools changed, and when it answered again. */
  onToolsChanged(listener: () => void): () => void {
    return this.#inner.onToolsChanged?.(listener) ?? (() => {});
  }

  /** Stops the connections the server keeps for `principal` (a client with no session left). */
  async release(principal: string): Promise<void> {
    await this.#inner.release?.(principal);
  }

  /** Stops the server and its restarts. */
  close(): Promise<void> {
    return this.#inner.close();
  }
}

/** `1 tool`, `3 tools`. */
function plural(count: number): string {
  return `${count} tool${count === 1 ? "" : "s"}`;
}
