/**
 * The prompts and resources of the upstream MCP servers behind
 * `spillway serve`, per client. What a server lists may depend on the
 * connection it lists on (a browser lists its open pages), and every client
 * has its own connection to each server: so each client's catalog
 * ({@linkcode ClientCatalog}) is listed from its own connections, when it
 * first asks, and a server's part of it is listed again when that client's
 * connection says it changed (`notifications/prompts/list_changed`,
 * `…/resources/list_changed`); only that client is told. A client whose last
 * session ended is forgotten with its connections.
 *
 * At start every server is listed once on spillway's own connection: for
 * its capabilities, and so that a listing that fails or a clash is told
 * when the gateway starts. Two servers listing the same prompt name,
 * resource URI or URI template: the server configured first keeps it, and a
 * warning names both (once per clash). Unlike a tool clash this does not
 * stop the gateway: a prompt or resource has no config entry that could
 * rename it, and it runs nothing.
 *
 * @module
 */

import type { ServerCapabilities } from "../service/sdk.ts";
import type { CatalogUpstream } from "../service/upstream/catalog_upstream.ts";
import { type CatalogKind, ClientCatalog } from "./client_catalog.ts";

export type { CatalogKind } from "./client_catalog.ts";

/** The upstream servers' prompts and resources, one catalog per client. */
export class UpstreamCatalog {
  readonly #sources: readonly CatalogUpstream[];
  readonly #capabilities: readonly ServerCapabilities[];
  readonly #warn: (message: string) => void;
  readonly #warned = new Set<string>();
  readonly #clients = new Map<string, Promise<ClientCatalog>>();
  /** Aborts a client's listings once it is forgotten. */
  readonly #forgotten = new Map<string, AbortController>();
  readonly #listeners = new Set<(kind: CatalogKind, client: string) => void>();

  private constructor(
    sources: readonly CatalogUpstream[],
    capabilities: readonly ServerCapabilities[],
    warn: (message: string) => void,
  ) {
    this.#sources = sources;
    this.#capabilities = capabilities;
    this.#warn = warn;
  }

  /**
   * Lists the prompts and resources of `sources` (started already) on
   * spillway's own connections, in their configured order, warning of what
   * failed and of clashes, and follows each client's changes.
   */
  static async load(
    sources: readonly CatalogUpstream[],
    warn: (message: string) => void,
  ): Promise<UpstreamCatalog> {
    const capabilities = await Promise.all(
      sources.map((source) => source.capabilities().catch(() => ({}))),
    );
    const catalog = new UpstreamCatalog(sources, capabilities, warn);
    await ClientCatalog.list(catalog.#options(undefined));
    for (const source of sources) {
      source.onCatalogChanged((kind, client) => {
        // spillway's own connection lists for nobody once the gateway started.
        if (client !== undefined) catalog.#changed(source, kind, client);
      });
    }
    return catalog;
  }

  /**
   * What the servers together offer: `prompts` and `resources` when any
   * server has them, resource subscriptions and `completions` when any
   * server offers them.
   */
  get capabilities(): ServerCapabilities {
    const has = (kind: CatalogKind) => this.#capabilities.some((caps) => caps[kind] !== undefined);
    const subscribe = this.#capabilities.some((caps) => caps.resources?.subscribe === true);
    const completions = this.#capabilities.some((caps) => caps.completions !== undefined);
    return {
      ...(has("prompts") ? { prompts: { listChanged: true } } : {}),
      ...(has("resources")
        ? { resources: { listChanged: true, ...(subscribe ? { subscribe: true } : {}) } }
        : {}),
      ...(completions ? { completions: {} } : {}),
    };
  }

  /**
   * Calls `listener` when `client`'s connection to a server says resource
   * `uri` was updated (it subscribed to it): that client's sessions that
   * subscribed to it should be told.
   */
  onResourceUpdated(listener: (uri: string, client: string) => void): () => void {
    const stops = this.#sources.map((source) =>
      source.onResourceUpdated((uri, client) => {
        if (client !== undefined) listener(uri, client);
      })
    );
    return () => stops.forEach((stop) => stop());
  }

  /**
   * `client`'s catalog, listed from its own connections the first time it
   * is asked for (which starts them, as a call does). A listing that failed
   * because its server could not be reached is tried again.
   */
  async of(client: string): Promise<ClientCatalog> {
    let pending = this.#clients.get(client);
    if (pending === undefined) {
      const forgotten = new AbortController();
      this.#forgotten.set(client, forgotten);
      pending = ClientCatalog.list({ ...this.#options(client), signal: forgotten.signal });
      this.#clients.set(client, pending);
      return await pending;
    }
    const catalog = await pending;
    await catalog.retryUnreached();
    return catalog;
  }

  /**
   * Calls `listener` when `client`'s connection to a server said its prompts
   * or resources changed (after they were listed again, if the client had
   * listed them): that client's sessions, and only they, should be told.
   */
  onChanged(listener: (kind: CatalogKind, client: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Forgets `client`'s catalog (its last session ended); it is listed anew when asked again. */
  release(client: string): void {
    this.#clients.delete(client);
    this.#forgotten.get(client)?.abort();
    this.#forgotten.delete(client);
  }

  #changed(source: CatalogUpstream, kind: CatalogKind, client: string): void {
    // A kind the server did not declare is neither listed nor advertised.
    if (this.#capabilities[this.#sources.indexOf(source)]?.[kind] === undefined) return;
    const pending = this.#clients.get(client);
    // Never listed: it is listed afresh when asked, but the client is told all the same.
    const relisted = pending === undefined
      ? Promise.resolve()
      : pending.then((catalog) => catalog.relist(source, kind));
    void relisted.then(() => {
      for (const listener of this.#listeners) listener(kind, client);
    });
  }

  #options(principal: string | undefined) {
    return {
      sources: this.#sources,
      capabilities: this.#capabilities,
      principal,
      warn: (message: string) => this.#tell(message),
    };
  }

  /** Each warning once: every client's catalog finds the same clashes. */
  #tell(message: string): void {
    if (this.#warned.has(message)) return;
    this.#warned.add(message);
    this.#warn(message);
  }
}
