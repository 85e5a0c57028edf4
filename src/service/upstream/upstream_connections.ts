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
 * that connection (the gateway's tool table is one for every client).
 * Prompts and resources are the principal's own: every listing,
 * `prompts/get` and `resources/read` goes to the asking principal's
 * connection, and word that they changed names the principal whose
 * connection said so.
 *
 * @module
 */

import { SpillwayError } from "../../errors/spillway_error.ts";
import type {
  CompleteRequest,
  CompleteResult,
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
  readonly #toolListeners = new Set<() => void>();
  readonly #catalogListeners = new Set<
    (kind: "prompts" | "resources", principal: string | undefined) => void
  >();
  readonly #updateListeners = new Set<(uri: string, principal: string | undefined) => void>();
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
    const listed = (await this.#connectionOf(undefined).ready()).tools;
    this.#tools ??= listed;
    return this.#tools;
  }

  /** The pid of `principal`'s server (spillway's own without one), while it runs over stdio. */
  pidOf(principal?: string): number | undefined {
    return principal === undefined ? this.#own?.pid : this.#byPrincipal.get(principal)?.pid;
  }

  /**
   * The revision `principal`'s connection (spillway's own without one)
   * speaks, while it answers.
   */
  protocolOf(principal?: string): string | undefined {
    return principal === undefined
      ? this.#own?.protocolVersion
      : this.#byPrincipal.get(principal)?.protocolVersion;
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
    await Promise.all(all.map((connection) => connection.close()));
  }

  /**
   * The server's capabilities, from any connection that runs (spillway's
   * own, started if needed, when none does).
   */
  async capabilities(): Promise<ServerCapabilities> {
    const running = this.#own ?? this.#byPrincipal.values().next().value;
    return await (running ?? this.#connectionOf(undefined)).capabilities();
  }

  /** One page of the server's prompts, from `principal`'s connection. */
  async listPrompts(
    cursor: string | undefined,
    principal?: string | undefined,
  ): Promise<CatalogPage<Prompt>> {
    return await this.#connectionOf(principal).listPrompts(cursor);
  }

  /** One page of the server's resources, from `principal`'s connection. */
  async listResources(
    cursor: string | undefined,
    principal?: string | undefined,
  ): Promise<CatalogPage<Resource>> {
    return await this.#connectionOf(principal).listResources(cursor);
  }

  /** One page of the server's resource templates, from `principal`'s connection. */
  async listResourceTemplates(
    cursor: string | undefined,
    principal?: string | undefined,
  ): Promise<CatalogPage<ResourceTemplate>> {
    return await this.#connectionOf(principal).listResourceTemplates(cursor);
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

  /** `completion/complete` on the asking principal's connection. */
  async complete(
    params: CompleteRequest["params"],
    options: CatalogRequestOptions,
  ): Promise<CompleteResult> {
    return await this.#connectionOf(options.principal).complete(params, options);
  }

  /** `resources/subscribe` on the asking principal's connection. */
  async subscribe(uri: string, options: CatalogRequestOptions): Promise<void> {
    await this.#connectionOf(options.principal).subscribe(uri, options);
  }

  /** `resources/unsubscribe` on the asking principal's connection. */
  async unsubscribe(uri: string, options: CatalogRequestOptions): Promise<void> {
    await this.#connectionOf(options.principal).unsubscribe(uri, options);
  }

  /** Calls `listener` when a connection says a subscribed resource was updated, with its principal. */
  onResourceUpdated(listener: (uri: string, principal: string | undefined) => void): () => void {
    this.#updateListeners.add(listener);
    return () => this.#updateListeners.delete(listener);
  }

  /**
   * Calls `listener` when a connection says the server's prompts or
   * resources changed, with the connection's principal (`undefined`:
   * spillway's own).
   */
  onCatalogChanged(
    listener: (kind: "prompts" | "resources", principal: string | undefined) => void,
  ): () => void {
    this.#catalogListeners.add(listener);
    return () => this.#catalogListeners.delete(listener);
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

  /** Whose `connection` is (`principal` undefined: spillway's own); none once released. */
  #ownerOf(connection: UpstreamConnection): { readonly principal: string | undefined } | undefined {
    if (connection === this.#own) return { principal: undefined };
    for (const [principal, known] of this.#byPrincipal) {
      if (known === connection) return { principal };
    }
    return undefined;
  }

  /** `connection`, its changes followed. */
  #watched(connection: UpstreamConnection): UpstreamConnection {
    connection.onToolsChanged(() => {
      this.#tools = connection.listedTools;
      for (const listener of this.#toolListeners) listener();
    });
    connection.onCatalogChanged((kind) => {
      // Whose it is now: spillway's own connection may have been taken over since.
      const owner = this.#ownerOf(connection);
      if (owner === undefined) return;
      for (const listener of this.#catalogListeners) listener(kind, owner.principal);
    });
    connection.onResourceUpdated((uri) => {
      const owner = this.#ownerOf(connection);
      if (owner === undefined) return;
      for (const listener of this.#updateListeners) listener(uri, owner.principal);
    });
    return connection;
  }
}
