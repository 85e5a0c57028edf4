/**
 * One client's catalog of the upstream servers' prompts and resources,
 * listed from that client's own connection to each server (what a server
 * lists may depend on the connection: a browser's open pages), and which
 * server each item belongs to. {@linkcode UpstreamCatalog} keeps one per
 * client and relists a server's part of it when that client's connection
 * says it changed.
 *
 * Two servers listing the same prompt name, resource URI or URI template:
 * the server configured first keeps it (the warning is the caller's).
 *
 * @module
 */

import { reasonText } from "../errors/reason_text.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import {
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
  UriTemplate,
} from "../service/sdk.ts";
import type { CatalogPage, CatalogUpstream } from "../service/upstream/catalog_upstream.ts";

/** What changed, as the notifications say it. */
export type CatalogKind = "prompts" | "resources";

/** Options of {@linkcode ClientCatalog.list}. */
export interface ClientCatalogOptions {
  /** The servers, in their configured order. */
  readonly sources: readonly CatalogUpstream[];
  /** Each server's capabilities, in the same order: a kind it lacks is never listed. */
  readonly capabilities: readonly ServerCapabilities[];
  /** Whose connections list it (`undefined`: spillway's own). */
  readonly principal: string | undefined;
  /** Tells of a listing that failed and of a clash. */
  readonly warn: (message: string) => void;
  /**
   * Aborts once the catalog is forgotten (its client's connections are
   * released): no page is asked for after it, which would start a
   * connection for a client without sessions. Default: never.
   */
  readonly signal?: AbortSignal;
}

/** One listed item and the server it came from. */
interface Owned<T> {
  readonly source: CatalogUpstream;
  readonly item: T;
}

/** What one server listed. */
interface Listing {
  prompts: readonly Prompt[];
  resources: readonly Resource[];
  templates: readonly ResourceTemplate[];
}

/** One client's prompts and resources, by owner. */
export class ClientCatalog {
  readonly #options: ClientCatalogOptions;
  readonly #listings = new Map<CatalogUpstream, Listing>();
  /** Each server's listings of a kind, one after another (the last one's answer is kept). */
  readonly #queues = new Map<string, Promise<void>>();
  /** The listings that failed because the server could not be reached: tried again when asked. */
  readonly #unreached = new Set<string>();
  #retrying: Promise<void> | undefined;
  #prompts = new Map<string, Owned<Prompt>>();
  #resources = new Map<string, Owned<Resource>>();
  #templates: (Owned<ResourceTemplate> & { readonly matcher: UriTemplate })[] = [];

  private constructor(options: ClientCatalogOptions) {
    this.#options = options;
  }

  /** Lists every server's prompts, then its resources and templates, on the principal's connections. */
  static async list(options: ClientCatalogOptions): Promise<ClientCatalog> {
    const catalog = new ClientCatalog(options);
    await Promise.all(options.sources.map((source) => catalog.relist(source, "prompts")));
    await Promise.all(options.sources.map((source) => catalog.relist(source, "resources")));
    return catalog;
  }

  /**
   * Lists `source`'s prompts (or its resources and templates) again, after
   * any listing of them under way. A failure lists none of that kind.
   */
  relist(source: CatalogUpstream, kind: CatalogKind): Promise<void> {
    const key = this.#key(source, kind);
    const next = (this.#queues.get(key) ?? Promise.resolve())
      .then(() => this.#list(source, kind))
      .then(() => this.#index());
    this.#queues.set(key, next.catch(() => {}));
    return next;
  }

  /**
   * Lists again what failed because its server could not be reached
   * (started, or reached); requests that ask meanwhile share that one try.
   */
  retryUnreached(): Promise<void> {
    if (this.#unreached.size === 0) return Promise.resolve();
    this.#retrying ??= (async () => {
      const again = this.#options.sources.flatMap((source) =>
        (["prompts", "resources"] as const)
          .filter((kind) => this.#unreached.has(this.#key(source, kind)))
          .map((kind) => this.relist(source, kind))
      );
      await Promise.all(again);
    })().finally(() => this.#retrying = undefined);
    return this.#retrying;
  }

  /** Every server's prompts, clashes resolved. */
  get prompts(): Prompt[] {
    return [...this.#prompts.values()].map((owned) => owned.item);
  }

  /** Every server's resources, clashes resolved. */
  get resources(): Resource[] {
    return [...this.#resources.values()].map((owned) => owned.item);
  }

  /** Every server's resource templates, clashes resolved. */
  get templates(): ResourceTemplate[] {
    return this.#templates.map((owned) => owned.item);
  }

  /** The server of prompt `name`, if one listed it. */
  promptOwner(name: string): CatalogUpstream | undefined {
    return this.#prompts.get(name)?.source;
  }

  /**
   * The server of resource template `uriTemplate` (a `completion/complete`
   * reference): the one that listed it, else as {@linkcode resourceOwner}.
   */
  templateOwner(uriTemplate: string): CatalogUpstream | undefined {
    const listed = this.#templates.find((owned) => owned.item.uriTemplate === uriTemplate);
    return listed?.source ?? this.resourceOwner(uriTemplate);
  }

  /**
   * The server of resource `uri`: the one that listed it, else the first
   * whose URI template matches it, else the only server with resources.
   */
  resourceOwner(uri: string): CatalogUpstream | undefined {
    const listed = this.#resources.get(uri)?.source;
    if (listed !== undefined) return listed;
    const templated = this.#templates.find((owned) => owned.matcher.match(uri) !== null);
    if (templated !== undefined) return templated.source;
    const { sources, capabilities } = this.#options;
    const serving = sources.filter((_, i) => capabilities[i]?.resources !== undefined);
    return serving.length === 1 ? serving[0] : undefined;
  }

  #key(source: CatalogUpstream, kind: CatalogKind): string {
    return `${this.#options.sources.indexOf(source)}\0${kind}`;
  }

  /** Lists one server's prompts, or its resources and templates; a failure lists none. */
  async #list(source: CatalogUpstream, kind: CatalogKind): Promise<void> {
    const { principal, sources, capabilities } = this.#options;
    const listing = this.#listings.get(source) ?? { prompts: [], resources: [], templates: [] };
    this.#listings.set(source, listing);
    const caps = capabilities[sources.indexOf(source)] ?? {};
    if (caps[kind] === undefined) return;
    const key = this.#key(source, kind);
    this.#unreached.delete(key);
    const { signal } = this.#options;
    const unlessForgotten = <T>(page: () => Promise<T>) => {
      signal?.throwIfAborted();
      return page();
    };
    try {
      // Each page is under the server's start-up timeout (a listing is part of its start).
      if (kind === "prompts") {
        listing.prompts = await everyPage((cursor) =>
          unlessForgotten(() => source.listPrompts(cursor, principal))
        );
        return;
      }
      const resources = await everyPage((cursor) =>
        unlessForgotten(() => source.listResources(cursor, principal))
      );
      const templates = await everyPage((cursor) =>
        unlessForgotten(() => source.listResourceTemplates(cursor, principal))
      );
      listing.resources = resources;
      listing.templates = templates;
    } catch (error) {
      if (kind === "prompts") listing.prompts = [];
      else [listing.resources, listing.templates] = [[], []];
      if (signal?.aborted) return; // Forgotten: nobody reads it, nothing to tell.
      if (error instanceof SpillwayError && error.code === "tool_unavailable") {
        this.#unreached.add(key);
      }
      const whose = principal === undefined ? "" : ` for client ${principal}`;
      const served = principal === undefined ? "none are served" : "none are served to it";
      this.#options.warn(
        `${source.name}: listing its ${kind}${whose} failed, ${served}: ${reasonText(error)}`,
      );
    }
  }

  /** Rebuilds the owner tables, the first configured server winning each clash. */
  #index(): void {
    const prompts = new Map<string, Owned<Prompt>>();
    const resources = new Map<string, Owned<Resource>>();
    const templates = new Map<string, Owned<ResourceTemplate>>();
    for (const source of this.#options.sources) {
      const listing = this.#listings.get(source);
      if (listing === undefined) continue;
      for (const item of listing.prompts) this.#claim(prompts, "prompt", item.name, source, item);
      for (const item of listing.resources) {
        this.#claim(resources, "resource", item.uri, source, item);
      }
      for (const item of listing.templates) {
        this.#claim(templates, "resource template", item.uriTemplate, source, item);
      }
    }
    this.#prompts = prompts;
    this.#resources = resources;
    this.#templates = [...templates.values()].flatMap((owned) => {
      try {
        return [{ ...owned, matcher: new UriTemplate(owned.item.uriTemplate) }];
      } catch (error) {
        this.#options.warn(
          `${owned.source.name}: its resource template ` +
            `${JSON.stringify(owned.item.uriTemplate)} cannot be read, it is not served: ` +
            reasonText(error),
        );
        return [];
      }
    });
  }

  /** Adds `item` unless an earlier server has `key`; then tells of the clash. */
  #claim<T>(
    table: Map<string, Owned<T>>,
    what: string,
    key: string,
    source: CatalogUpstream,
    item: T,
  ): void {
    const first = table.get(key);
    if (first === undefined) {
      table.set(key, { source, item });
      return;
    }
    if (first.source === source) return;
    this.#options.warn(
      `${first.source.name} and ${source.name} both list the ${what} ${JSON.stringify(key)}: ` +
        `clients get ${first.source.name}'s (configured first)`,
    );
  }
}

/** How many pages of one list are followed before the server is taken to loop. */
const MAX_PAGES = 1_000;

/** Every page of a paginated list. */
async function everyPage<T>(
  page: (cursor: string | undefined) => Promise<CatalogPage<T>>,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const { items: batch, nextCursor: next } = await page(cursor);
    items.push(...batch);
    if (next !== undefined && seen.has(next)) {
      throw new TypeError(`it repeated the cursor ${JSON.stringify(next)}`);
    }
    if (next !== undefined && seen.size >= MAX_PAGES) {
      throw new TypeError(`it gave more than ${MAX_PAGES} pages`);
    }
    cursor = next;
    if (next !== undefined) seen.add(next);
  } while (cursor !== undefined);
  return items;
}
