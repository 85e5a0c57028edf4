/**
 * The execution service's tool table: every source's tools under the names
 * callers use (renames applied), as routes to run and as the `tools/list`
 * MCP callers get; rebuilt when a source says its tools changed.
 *
 * @module
 */

import type { Logger } from "@logtape/logtape";
import type { Tool } from "./sdk.ts";
import { type ResolvedRoute, resolveToolRoutes, type ToolRoute } from "./tool_routes.ts";
import type { ToolDefinition, ToolSource } from "./tool_source.ts";

/** The exported tools of a set of sources. */
export class ToolTable {
  readonly #sources: readonly ToolSource[];
  readonly #renames: Readonly<Record<string, ToolRoute>>;
  readonly #log: Logger;
  readonly #listeners = new Set<() => void>();
  readonly #unsubscribe: (() => void)[] = [];
  #routes = new Map<string, ResolvedRoute>();
  #tools: Tool[] = [];
  #listed = false;
  #closed = false;

  /**
   * @param sources the tool sources; their names must be unique
   * @param renames exported name → source tool; see `ExecutionServiceOptions.toolNames`
   * @param log where a rebuild that failed is logged
   */
  constructor(
    sources: readonly ToolSource[],
    renames: Readonly<Record<string, ToolRoute>>,
    log: Logger,
  ) {
    this.#sources = sources;
    this.#renames = renames;
    this.#log = log;
  }

  /**
   * Lists every source's tools and builds the table, then follows the
   * sources' changes.
   *
   * @throws {TypeError} on duplicate or unknown names
   * @throws {SpillwayError} `config_invalid` when a rename names a tool its source does not list
   * @throws whatever a source's `list()` throws
   */
  async list(): Promise<void> {
    this.#set(resolveToolRoutes(await this.#listAll(), this.#renames));
    this.#listed = true;
    if (this.#closed) return;
    for (const source of this.#sources) {
      const unsubscribe = source.onToolsChanged?.(() => void this.#relist());
      if (unsubscribe !== undefined) this.#unsubscribe.push(unsubscribe);
    }
  }

  /** Stops following the sources' changes. */
  close(): void {
    this.#closed = true;
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  /**
   * Calls `listener` whenever the table was rebuilt after a source's tools
   * changed. Returns the unsubscribe function.
   */
  onChanged(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The route of the tool exported as `name`, if there is one. */
  route(name: string): ResolvedRoute | undefined {
    return this.#routes.get(name);
  }

  /** The exported tools, as callers see them. */
  definitions(): ToolDefinition[] {
    return [...this.#routes.values()].map(({ definition }) => definition);
  }

  /** The exported tools as `tools/list` answers them. */
  get tools(): readonly Tool[] {
    return this.#tools;
  }

  #listAll(): Promise<(readonly [ToolSource, readonly ToolDefinition[]])[]> {
    return Promise.all(
      this.#sources.map(async (source) => [source, await source.list()] as const),
    );
  }

  #set(routes: Map<string, ResolvedRoute>): void {
    this.#routes = routes;
    this.#tools = [...routes.values()].map(({ definition }) => ({
      name: definition.name,
      description: definition.description,
      // MCP requires an object schema; sources may omit the `type`.
      inputSchema: { type: "object", ...definition.inputSchema } as Tool["inputSchema"],
    }));
  }

  /** Rebuilds the table after a source said its tools changed. */
  async #relist(): Promise<void> {
    try {
      const listed = await this.#listAll();
      if (!this.#listed || this.#closed) return;
      this.#set(resolveToolRoutes(listed, this.#renames));
    } catch (error) {
      // A rename that no longer resolves, a name two sources now export:
      // keep serving the table that worked.
      this.#log.warn("a tool source's tools changed, but the tool table was kept: {error}", {
        error,
      });
      return;
    }
    for (const listener of this.#listeners) listener();
  }
}
