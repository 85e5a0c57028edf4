/**
 * Every connection spillway holds to one upstream server: one per principal
 * (a `spillway serve` client), so that what the server keeps for a
 * connection (a browser, a shell, a cache) and what it sends on it (log
 * messages, progress, sampling and elicitation requests) never reach
 * another client; and one of spillway's own, for the calls of callers
 * without a principal (`spillway query`, the runtime) and for listings.
 *
 * A principal's connection is made on its first call and closed by
 * {@linkcode UpstreamConnections.release} (the gateway releases a client
 * when its last session ends). The first principal to need one takes over
 * spillway's own connection when it runs and has served no call (it only
 * listed tools, prompts and resources at start), so a gateway of one client
 * runs each server once, as before; later principals start their own.
 *
 * The server's tools are listed once, for everyone: at start, on the first
 * connection, then again whenever a connection says they changed, from
 * that connection. Prompts and resources are listed the same way (from the
 * connection that last said they changed); `prompts/get` and
 * `resources/read` go to the asking principal's own connection.
 *
 * @module
 */

import { SpillwayError } from "../../errors/spillway_error.ts";
import type {
  GetPromptRequest,
  GetPromptResult,
  Prompt,
  ReadResourceRequest,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
} from "../sdk.ts";
import type { ToolDefinition } from "../tool_source.ts";
import type { CatalogPage, CatalogRequestOptions, CatalogUpstream } from "./catalog_upstream.ts";
import type { UpstreamConnection } from "./upstream_connection.ts";
import type { LiveConnection } from "./upstream_connection_events.ts";

/** A connection that answers, and the connection it is a life of. */
export interface ReadyConnection {
  /** The connection (its relays carry the call's side). */
  readonly connection: UpstreamConnection;
  /** Its current link and tools. */
  readonly live: LiveConnection;
}

/**
 * The connections of one upstream server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { UpstreamConnection } from "./upstream_connection.ts";
 * import { UpstreamConnections } from "./upstream_connections.ts";
 * const server = new URL("../../../examples/upstream_server.ts", import.meta.url);
 * const connections = new UpstreamConnections("mcp.demo", () =>
 *   new UpstreamConnection({
 *     name: "mcp.demo",
 *     server: {
 *       kind: "stdio",
 *       process: { command: Deno.execPath(), args: ["run", "--allow-env", server.pathname] },
 *     },
 *     startupTimeoutMs: 30_000,
 *     warn: () => {},
 *   }));
 * const alice = await connections.ready("alice");
 * const bob = await connections.ready("bob");
 * assert.notEqual(alice.live.link.pid, bob.live.link.pid);
 * await connections.release("alice");
 * assert.equal(connections.pidOf("alice"), undefined);
 * await connections.close();
 * ```
 */
export class UpstreamConnections implements CatalogUpstream {
  /** The source name, `"mcp.<server>"`. */
  readonly name: string;
  readonly #make: () => UpstreamConnection;
  /** spillway's own connection: callers without a principal, and listings. Made on first use. */
  #own: UpstreamConnection | undefined;
  /** Whether `#own` served a call: then it is no principal's to take over. */
  #ownCalled = false;
  readonly #byPrincipal = new Map<string, UpstreamConnection>();
  /** The tools as last listed, from whichever connection listed them last. */
  #tools: readonly ToolDefinition[] | undefined;
  /** The connection whose prompts and resources are listed: the last that said they changed. */
  #catalogFrom: UpstreamConnection | undefined;
  readonly #toolListeners = new Set<() => void>();
  readonly #catalogListeners = new Set<(kind: "prompts" | "resources") => void>();
  #closed = false;

  /**
   * @param name the source name, for messages
   * @param make a new connection to the server (not started)
   */
  constructor(name: string, make: () => UpstreamConnection) {
    this.name = name;
    this.#make = make;
  }

  /**
   * The connection of `principal` (spillway's own without one), as it
   * answers now: the server is started if needed.
   *
   * @throws {SpillwayError} `tool_unavailable` when the server cannot be
   *   started or the connections are closed
   */
  async ready(principal?: string): Promise<ReadyConnection> {
    const connection = this.#connectionOf(principal);
    if (principal === undefined) this.#ownCalled = true;
    return { connection, live: await connection.ready() };
  }

  /**
   * The server's tools, as last listed (listing them on spillway's own
   * connection the first time).
   *
   * @throws {SpillwayError} `tool_unavailable` when the server cannot be started
   */
  async tools(): Promise<readonly ToolDefinition[]> {
    if (this.#tools !== undefined) return this.#tools;
    const listed = (await this.#lister().ready()).tools;
    this.#tools ??= listed;
    return this.#tools;
  }

  /** The pid of `principal`'s server (spillway's own without one), while it runs over stdio. */
  pidOf(principal?: string): number | undefined {
    return principal === undefined ? this.#own?.pid : this.#byPrincipal.get(principal)?.pid;
  }

  /** The principals with a connection now. */
  get principals(): readonly string[] {
    return [...this.#byPrincipal.keys()];
  }

  /**
   * Closes `principal`'s connection (its server is stopped); its next call
   * starts a new one. Resolves once it is closed.
   */
  async release(principal: string): Promise<void> {
    const connection = this.#byPrincipal.get(principal);
    if (connection === undefined) return;
    this.#byPrincipal.delete(principal);
    if (this.#catalogFrom === connection) this.#catalogFrom = undefined;
    await connection.close();
  }

  /** Calls `listener` whenever a connection's tools were listed anew (see {@linkcode tools}). */
  onToolsChanged(listener: () => void): () => void {
    this.#toolListeners.add(listener);
    return () => this.#toolListeners.delete(listener);
  }

  /** Closes every connection (their servers are stopped). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#byPrincipal.values(), ...(this.#own === undefined ? [] : [this.#own])];
    this.#byPrincipal.clear();
    this.#catalogFrom = undefined;
    await Promise.all(all.map((connection) => connection.close()));
  }

  /** The server's capabilities (from the listing connection, started if needed). */
  async capabilities(): Promise<ServerCapabilities> {
    return await this.#lister().capabilities();
  }

  /** One page of the server's prompts, from the listing connection. */
  async listPrompts(cursor: string | undefined): Promise<CatalogPage<Prompt>> {
    return await this.#lister().listPrompts(cursor);
  }

  /** One page of the server's resources, from the listing connection. */
  async listResources(cursor: string | undefined): Promise<CatalogPage<Resource>> {
    return await this.#lister().listResources(cursor);
  }

  /** One page of the server's resource templates, from the listing connection. */
  async listResourceTemplates(
    cursor: string | undefined,
  ): Promise<CatalogPage<ResourceTemplate>> {
    return await this.#lister().listResourceTemplates(cursor);
  }

  /** `prompts/get` on the asking principal's connection. */
  async getPrompt(
    params: GetPromptRequest["params"],
    options: CatalogRequestOptions,
  ): Promise<GetPromptResult> {
    return await this.#connectionOf(options.principal).getPrompt(params, options);
  }

  /** `resources/read` on the asking principal's connection. */
  async readResource(
    params: ReadResourceRequest["params"],
    options: CatalogRequestOptions,
  ): Promise<ReadResourceResult> {
    return await this.#connectionOf(options.principal).readResource(params, options);
  }

  /** Calls `listener` when a connection says the server's prompts or resources changed. */
  onCatalogChanged(listener: (kind: "prompts" | "resources") => void): () => void {
    this.#catalogListeners.add(listener);
    return () => this.#catalogListeners.delete(listener);
  }

  /** What listings go to: the connection that last said the catalog changed, else spillway's own. */
  #lister(): UpstreamConnection {
    return this.#catalogFrom ?? this.#connectionOf(undefined);
  }

  /** `principal`'s connection, made (or taken over from spillway's own) on first use. */
  #connectionOf(principal: string | undefined): UpstreamConnection {
    if (this.#closed) {
      throw new SpillwayError("tool_unavailable", `${this.name} is closed`, { source: this.name });
    }
    if (principal === undefined) return this.#own ??= this.#watched(this.#make());
    const known = this.#byPrincipal.get(principal);
    if (known !== undefined) return known;
    let connection: UpstreamConnection;
    if (this.#own !== undefined && !this.#ownCalled && !this.#own.closed) {
      // It only listed: nothing of anyone's is in it.
      connection = this.#own;
      this.#own = undefined;
    } else {
      connection = this.#watched(this.#make());
    }
    this.#byPrincipal.set(principal, connection);
    return connection;
  }

  /** `connection`, its changes followed. */
  #watched(connection: UpstreamConnection): UpstreamConnection {
    connection.onToolsChanged(() => {
      this.#tools = connection.listedTools;
      for (const listener of this.#toolListeners) listener();
    });
    connection.onCatalogChanged((kind) => {
      this.#catalogFrom = connection;
      for (const listener of this.#catalogListeners) listener(kind);
    });
    return connection;
  }
}
