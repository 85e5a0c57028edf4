/**
 * The prompts and resources of the upstream MCP servers behind
 * `spillway serve`, and which server each belongs to. They are listed when
 * the gateway starts (every page) and again when a server says they changed
 * (`notifications/prompts/list_changed`, `…/resources/list_changed`), as the
 * tools are.
 *
 * Two servers listing the same prompt name, resource URI or URI template:
 * the server configured first keeps it, and a warning names both (once per
 * clash). Unlike a tool clash this does not stop the gateway: a prompt or
 * resource has no config entry that could rename it, and it runs nothing.
 *
 * @module
 */

import { reasonText } from "../errors/reason_text.ts";
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

/** The upstream servers' prompts and resources, by owner. */
export class UpstreamCatalog {
  readonly #sources: readonly CatalogUpstream[];
  readonly #capabilities: readonly ServerCapabilities[];
  readonly #warn: (message: string) => void;
  readonly #listings = new Map<CatalogUpstream, Listing>();
  readonly #warned = new Set<string>();
  readonly #listeners = new Set<(kind: CatalogKind) => void>();
  #prompts = new Map<string, Owned<Prompt>>();
  #resources = new Map<string, Owned<Resource>>();
  #templates: (Owned<ResourceTemplate> & { readonly matcher: UriTemplate })[] = [];

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
   * Lists the prompts and resources of `sources` (started already), in
   * their configured order, and follows their changes.
   */
  static async load(
    sources: readonly CatalogUpstream[],
    warn: (message: string) => void,
  ): Promise<UpstreamCatalog> {
    const capabilities = await Promise.all(
      sources.map((source) => source.capabilities().catch(() => ({}))),
    );
    const catalog = new UpstreamCatalog(sources, capabilities, warn);
    await Promise.all(sources.map((source) => catalog.#list(source, "prompts")));
    await Promise.all(sources.map((source) => catalog.#list(source, "resources")));
    catalog.#index();
    for (const source of sources) {
      source.onCatalogChanged((kind) => {
        void catalog.#list(source, kind).then(() => {
          catalog.#index();
          for (const listener of catalog.#listeners) listener(kind);
        });
      });
    }
    return catalog;
  }

  /** What the servers together offer: `prompts` and `resources` when any server has them. */
  get capabilities(): ServerCapabilities {
    const has = (kind: CatalogKind) => this.#capabilities.some((caps) => caps[kind] !== undefined);
    return {
      ...(has("prompts") ? { prompts: { listChanged: true } } : {}),
      ...(has("resources") ? { resources: { listChanged: true } } : {}),
    };
  }

  /** Calls `listener` after a server's prompts or resources changed and were listed again. */
  onChanged(listener: (kind: CatalogKind) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
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
   * The server of resource `uri`: the one that listed it, else the first
   * whose URI template matches it, else the only server with resources.
   */
  resourceOwner(uri: string): CatalogUpstream | undefined {
    const listed = this.#resources.get(uri)?.source;
    if (listed !== undefined) return listed;
    const templated = this.#templates.find((owned) => owned.matcher.match(uri) !== null);
    if (templated !== undefined) return templated.source;
    const serving = this.#sources.filter((_, i) => this.#capabilities[i]?.resources !== undefined);
    return serving.length === 1 ? serving[0] : undefined;
  }

  /** Lists one server's prompts, or its resources and templates; a failure lists none. */
  async #list(source: CatalogUpstream, kind: CatalogKind): Promise<void> {
    const listing = this.#listings.get(source) ?? { prompts: [], resources: [], templates: [] };
    this.#listings.set(source, listing);
    const caps = this.#capabilities[this.#sources.indexOf(source)] ?? {};
    if (caps[kind] === undefined) return;
    try {
      // Each page is under the server's start-up timeout (a listing is part of its start).
      if (kind === "prompts") {
        listing.prompts = await everyPage((cursor) => source.listPrompts(cursor));
        return;
      }
      listing.resources = await everyPage((cursor) => source.listResources(cursor));
      listing.templates = await everyPage((cursor) => source.listResourceTemplates(cursor));
    } catch (error) {
      this.#tell(
        `${source.name}: listing its ${kind} failed, none are served: ${reasonText(error)}`,
      );
    }
  }

  /** Rebuilds the owner tables, the first configured server winning each clash. */
  #index(): void {
    const prompts = new Map<string, Owned<Prompt>>();
    const resources = new Map<string, Owned<Resource>>();
    const templates = new Map<string, Owned<ResourceTemplate>>();
    for (const source of this.#sources) {
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
    this.#templates = [...templates.values()].map((owned) => ({
      ...owned,
      matcher: new UriTemplate(owned.item.uriTemplate),
    }));
  }

  /** Adds `item` unless an earlier server has `key`; then warns once. */
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
    const clash = `${what}\0${key}\0${source.name}`;
    if (this.#warned.has(clash)) return;
    this.#warned.add(clash);
    this.#tell(
      `${first.source.name} and ${source.name} both list the ${what} ${JSON.stringify(key)}: ` +
        `clients get ${first.source.name}'s (configured first)`,
    );
  }

  #tell(message: string): void {
    this.#warn(message);
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
