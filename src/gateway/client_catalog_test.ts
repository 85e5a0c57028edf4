import assert from "node:assert/strict";
import { SpillwayError } from "../errors/spillway_error.ts";
import type { Prompt, Resource, ServerCapabilities } from "../service/sdk.ts";
import type { CatalogPage, CatalogUpstream } from "../service/upstream/catalog_upstream.ts";
import { ClientCatalog } from "./client_catalog.ts";
import { UpstreamCatalog } from "./upstream_catalog.ts";
import { Milestones } from "../testing/tool_source_contract.ts";

type Kind = "prompts" | "resources";

/**
 * An upstream whose lists are per principal: `lists(principal)` answers
 * each listing (a function, so a test can hold one), and every request is
 * logged with its principal.
 */
class FakeUpstream implements CatalogUpstream {
  readonly name: string;
  readonly requests: string[] = [];
  readonly #listeners = new Set<(kind: Kind, principal: string | undefined) => void>();
  lists: (principal: string | undefined) => Promise<{ prompts: Prompt[]; resources: Resource[] }>;

  constructor(name: string, lists: FakeUpstream["lists"]) {
    this.name = name;
    this.lists = lists;
  }

  caps: ServerCapabilities = { prompts: {}, resources: {} };

  capabilities(): Promise<ServerCapabilities> {
    return Promise.resolve(this.caps);
  }
  async listPrompts(_: string | undefined, principal?: string): Promise<CatalogPage<Prompt>> {
    this.requests.push(`prompts ${principal}`);
    return { items: (await this.lists(principal)).prompts };
  }
  async listResources(_: string | undefined, principal?: string): Promise<CatalogPage<Resource>> {
    this.requests.push(`resources ${principal}`);
    return { items: (await this.lists(principal)).resources };
  }
  listResourceTemplates(): Promise<CatalogPage<never>> {
    return Promise.resolve({ items: [] });
  }
  getPrompt(): Promise<never> {
    return Promise.reject(new Error("not here"));
  }
  readResource(): Promise<never> {
    return Promise.reject(new Error("not here"));
  }
  complete(): Promise<never> {
    return Promise.reject(new Error("not here"));
  }
  subscribe(): Promise<never> {
    return Promise.reject(new Error("not here"));
  }
  unsubscribe(): Promise<never> {
    return Promise.reject(new Error("not here"));
  }
  onResourceUpdated(): () => void {
    return () => {};
  }
  onCatalogChanged(listener: (kind: Kind, principal: string | undefined) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  /** The server says, on `principal`'s connection, that `kind` changed. */
  change(kind: Kind, principal: string | undefined): void {
    for (const listener of this.#listeners) listener(kind, principal);
  }
}

/** Lists naming their principal: a prompt `p_WHO`, a resource `r://WHO`. */
const named = (principal: string | undefined) =>
  Promise.resolve({
    prompts: [{ name: `p_${principal}` }],
    resources: [{ uri: `r://${principal}`, name: String(principal) }],
  });

const uris = (catalog: ClientCatalog) => catalog.resources.map((resource) => resource.uri);

function options(
  sources: CatalogUpstream[],
  principal: string | undefined,
  warn: (message: string) => void = () => {},
) {
  return {
    sources,
    capabilities: sources.map(() => ({ prompts: {}, resources: {} })),
    principal,
    warn,
  };
}

Deno.test("ClientCatalog lists every server on its client's connections", async () => {
  const a = new FakeUpstream("mcp.a", named);
  const catalog = await ClientCatalog.list(options([a], "alice"));
  assert.deepEqual(a.requests, ["prompts alice", "resources alice"]);
  assert.deepEqual(catalog.prompts.map((prompt) => prompt.name), ["p_alice"]);
  assert.deepEqual(uris(catalog), ["r://alice"]);
  assert.equal(catalog.resourceOwner("r://alice"), a);
  assert.equal(catalog.promptOwner("p_bob"), undefined);
});

Deno.test("ClientCatalog: a relisting asked for during another waits for it, and its answer is kept", async () => {
  let answer = 0;
  const held: PromiseWithResolvers<void>[] = [];
  const started = new Milestones();
  const a = new FakeUpstream("mcp.a", named);
  const catalog = await ClientCatalog.list(options([a], "alice"));
  a.lists = async () => {
    const mine = ++answer;
    const gate = Promise.withResolvers<void>();
    held.push(gate);
    started.add();
    await gate.promise;
    return { prompts: [], resources: [{ uri: `r://${mine}`, name: "n" }] };
  };
  const first = catalog.relist(a, "resources");
  const second = catalog.relist(a, "resources");
  await started.reached(1);
  assert.equal(started.count, 1, "the second listing waits for the first");
  held[0]?.resolve();
  await first;
  assert.deepEqual(uris(catalog), ["r://1"]);
  await started.reached(2);
  held[1]?.resolve();
  await second;
  assert.deepEqual(uris(catalog), ["r://2"]);
});

Deno.test("ClientCatalog: a server that could not be reached is listed again when asked; a bad answer is not", async () => {
  const warnings: string[] = [];
  let reachable = false;
  const down = new FakeUpstream(
    "mcp.down",
    (principal) =>
      reachable
        ? named(principal)
        : Promise.reject(new SpillwayError("tool_unavailable", "mcp.down cannot start")),
  );
  const bad = new FakeUpstream("mcp.bad", () => Promise.reject(new TypeError("a bad page")));
  const catalog = await ClientCatalog.list(
    options([down, bad], "bob", (message) => warnings.push(message)),
  );
  assert.deepEqual(catalog.prompts, []);
  assert.ok(warnings.includes(
    "mcp.down: listing its resources for client bob failed, none are served to it: mcp.down cannot start",
  ));
  assert.ok(warnings.includes(
    "mcp.bad: listing its prompts for client bob failed, none are served to it: a bad page",
  ));
  reachable = true;
  const before = bad.requests.length;
  const asked = down.requests.length;
  // Requests asking at once share one try.
  await Promise.all([catalog.retryUnreached(), catalog.retryUnreached()]);
  assert.deepEqual(down.requests.slice(asked), ["prompts bob", "resources bob"]);
  await catalog.retryUnreached();
  assert.equal(down.requests.length, asked + 2, "listed: nothing is tried again");
  assert.deepEqual(uris(catalog), ["r://bob"]);
  assert.equal(bad.requests.length, before, "a server that answered badly is not asked again");
});

Deno.test("UpstreamCatalog keeps a catalog per client, relists it on that client's change, tells that client, forgets it on release", async () => {
  const warnings: string[] = [];
  const a = new FakeUpstream("mcp.a", named);
  const b = new FakeUpstream(
    "mcp.b",
    () => Promise.resolve({ prompts: [{ name: "shared" }], resources: [] }),
  );
  a.lists = async (principal) => ({ ...(await named(principal)), prompts: [{ name: "shared" }] });
  const catalog = await UpstreamCatalog.load([a, b], (message) => warnings.push(message));
  assert.deepEqual(
    a.requests,
    ["prompts undefined", "resources undefined"],
    "at start: spillway's own",
  );
  assert.deepEqual(warnings, [
    `mcp.a and mcp.b both list the prompt "shared": clients get mcp.a's (configured first)`,
  ]);
  const told: string[] = [];
  catalog.onChanged((kind, client) => told.push(`${kind} ${client}`));

  const alice = await catalog.of("alice");
  const bob = await catalog.of("bob");
  assert.equal(await catalog.of("alice"), alice, "listed once");
  assert.deepEqual([uris(alice), uris(bob)], [["r://alice"], ["r://bob"]]);
  assert.equal(warnings.length, 1, "each clash told once, for every client");

  a.lists = (principal) =>
    Promise.resolve({ prompts: [], resources: [{ uri: `r://${principal}/new`, name: "n" }] });
  const heard = Promise.withResolvers<void>();
  catalog.onChanged(() => heard.resolve());
  a.change("resources", "alice");
  await heard.promise;
  assert.deepEqual(told, ["resources alice"]);
  assert.deepEqual(uris(alice), ["r://alice/new"]);
  assert.deepEqual(uris(bob), ["r://bob"], "bob's catalog is untouched");

  // spillway's own connection lists for nobody: nobody is told.
  a.change("prompts", undefined);
  catalog.release("alice");
  const again = await catalog.of("alice");
  assert.notEqual(again, alice, "a released client is listed afresh");
  assert.deepEqual(told, ["resources alice"]);
});

Deno.test("UpstreamCatalog: a change of a kind the server did not declare tells nobody", async () => {
  const a = new FakeUpstream("mcp.a", named);
  a.caps = { resources: {} };
  const catalog = await UpstreamCatalog.load([a], () => {});
  const told: string[] = [];
  catalog.onChanged((kind, client) => told.push(`${kind} ${client}`));
  assert.deepEqual((await catalog.of("alice")).prompts, [], "prompts are not listed");
  const heard = Promise.withResolvers<void>();
  catalog.onChanged(() => heard.resolve());
  a.change("prompts", "alice");
  a.change("resources", "alice");
  await heard.promise;
  assert.deepEqual(told, ["resources alice"]);
});

Deno.test("UpstreamCatalog: a client forgotten while its listing runs asks for no further page and tells nothing", async () => {
  const warnings: string[] = [];
  const a = new FakeUpstream("mcp.a", named);
  const catalog = await UpstreamCatalog.load([a], (message) => warnings.push(message));
  const first = Promise.withResolvers<CatalogPage<Resource>>();
  const asked = new Milestones();
  const pages: (string | undefined)[] = [];
  a.listResources = (cursor) => {
    pages.push(cursor);
    asked.add();
    return cursor === undefined ? first.promise : Promise.resolve({ items: [] });
  };
  const listing = catalog.of("alice");
  await asked.reached(1);
  catalog.release("alice");
  first.resolve({ items: [{ uri: "r://1", name: "one" }], nextCursor: "2" });
  const forgotten = await listing;
  assert.deepEqual(pages, [undefined], "the next page is not asked for");
  assert.deepEqual(forgotten.resources, []);
  assert.deepEqual(warnings, []);
  // Asked again, the client is listed afresh, every page.
  assert.deepEqual((await catalog.of("alice")).resources, [{ uri: "r://1", name: "one" }]);
  assert.deepEqual(pages, [undefined, undefined, "2"]);
});
