/**
 * One connection to an upstream MCP server, as its users see it: an
 * {@linkcode upstreamConnectionMachine} actor, and the promises and
 * listeners around it. The tool source ({@linkcode McpUpstreamSource}) asks
 * it for a live connection before each call; the gateway's catalog reaches
 * the server's prompts and resources through it (its principal's
 * connection, by {@linkcode UpstreamConnections}), never through an SDK
 * client of its own.
 *
 * Nothing here is shared: a gateway holds several connections to one
 * server (one per client: {@linkcode UpstreamConnections}), each with its
 * own actor, relays and links.
 *
 * @module
 */

import { createActor, type InspectionEvent } from "xstate";
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
import { SYSTEM_CLOCK, type TimerClock } from "../timer_clock.ts";
import type { ToolDefinition } from "../tool_source.ts";
import type { CatalogPage, CatalogRequestOptions } from "./catalog_upstream.ts";
import { UpstreamCallRelays } from "./upstream_call_relays.ts";
import { inputRequiredError } from "./input_required_text.ts";
import { ResourceSubscriptions } from "./resource_subscriptions.ts";
import type { RestartPolicy } from "./restart_policy.ts";
import type { LiveConnection } from "./upstream_connection_events.ts";
import { upstreamConnectionMachine } from "./upstream_connection_machine.ts";
import type { UpstreamServer } from "./upstream_link.ts";
import { ProtocolVerdict, type UpstreamProtocol } from "./upstream_protocol.ts";

/** Options of {@linkcode UpstreamConnection}. */
export interface UpstreamConnectionOptions {
  /** The source name, `"mcp.<server>"`. */
  readonly name: string;
  /** Where the server is. */
  readonly server: UpstreamServer;
  /** How long the handshake and each listing may take, in ms. */
  readonly startupTimeoutMs: number;
  /** When a connection that is down starts again. Default: `{ when: "demand" }`. */
  readonly restart?: RestartPolicy;
  /** Tells a person what they should know (a server started again). */
  readonly warn: (message: string) => void;
  /** Whether callers answer the server's sampling and elicitation requests. Default: `false`. */
  readonly relayInquiries?: boolean;
  /** The clock of the machine's delays. Default: {@linkcode SYSTEM_CLOCK}. */
  readonly clock?: TimerClock;
  /** The revision to speak. Default: `"auto"`. */
  readonly protocol?: UpstreamProtocol;
  /**
   * What `auto` found out about the server, shared with its other
   * connections. Default: this connection's own.
   */
  readonly verdict?: ProtocolVerdict;
  /** Receives the connection actor's XState inspection events (`serve --inspect`). Default: none. */
  readonly inspect?: (event: InspectionEvent) => void;
}

/** The connection to one upstream server. */
export class UpstreamConnection {
  /** The source name, `"mcp.<server>"`. */
  readonly name: string;
  /** How long the handshake and each listing may take, in ms. */
  readonly startupTimeoutMs: number;
  /** What the server sends back while a call runs, passed on to its caller. */
  readonly relays: UpstreamCallRelays;
  readonly #actor;
  /** The start that callers wait for, while one is under way. */
  #attempt: PromiseWithResolvers<LiveConnection> | undefined;
  readonly #toolListeners = new Set<() => void>();
  readonly #catalogListeners = new Set<(kind: "prompts" | "resources") => void>();
  readonly #updateListeners = new Set<(uri: string) => void>();
  readonly #subscriptions: ResourceSubscriptions;
  /** How many times the server answered (a start, then each start again). */
  #lives = 0;

  /** Creates the actor; the server is started by the first {@linkcode ready}. */
  constructor(options: UpstreamConnectionOptions) {
    this.name = options.name;
    this.startupTimeoutMs = options.startupTimeoutMs;
    this.relays = new UpstreamCallRelays(options.name, {
      inquiries: options.relayInquiries ?? false,
    });
    const verdict = options.verdict ?? new ProtocolVerdict();
    this.#subscriptions = new ResourceSubscriptions(options.name);
    this.#actor = createActor(upstreamConnectionMachine, {
      input: {
        name: options.name,
        server: options.server,
        startupTimeoutMs: options.startupTimeoutMs,
        restart: options.restart ?? { when: "demand" },
        relays: this.relays,
        warn: options.warn,
        protocol: options.protocol ?? "auto",
        verdict,
      },
      clock: options.clock ?? SYSTEM_CLOCK,
      ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
    });
    this.#actor.on("connection.ready", ({ live }) => {
      this.#settle((attempt) => attempt.resolve(live));
      // Started again, the server is a new process (a new MCP session): what
      // it lists may differ from what its last life listed.
      this.#lives += 1;
      if (this.#lives > 1) {
        for (const kind of ["prompts", "resources"] as const) this.#tell(kind);
        this.#subscriptions.renew(live.link, this.startupTimeoutMs);
      }
    });
    this.#actor.on("connection.failed", ({ error }) => this.#settle((a) => a.reject(error)));
    this.#actor.on("tools.changed", () => {
      for (const listener of this.#toolListeners) listener();
    });
    this.#actor.on("catalog.changed", ({ kind }) => this.#tell(kind));
    this.#actor.on("resource.updated", ({ uri }) => {
      for (const listener of this.#updateListeners) listener(uri);
    });
    // A fault of the machine itself (a bug) fails whoever waits, rather than leaving them waiting.
    this.#actor.subscribe({ error: (error) => this.#settle((attempt) => attempt.reject(error)) });
    this.#actor.start();
  }

  /** The machine's state, for inspection: `"idle"`, `{ ready: "serving" }`, … */
  get state(): unknown {
    return this.#actor.getSnapshot().value;
  }

  /** Whether the connection is closed or closing: it will not answer again. */
  get closed(): boolean {
    const snapshot = this.#actor.getSnapshot();
    return snapshot.status === "done" || snapshot.matches("closing") || snapshot.context.closing;
  }

  /** The server's tools as this connection last listed them (none before its first start). */
  get listedTools(): readonly ToolDefinition[] {
    return this.#actor.getSnapshot().context.tools;
  }

  /** The revision the connection speaks while it answers (`"2026-07-28"`, `"2025-11-25"`). */
  get protocolVersion(): string | undefined {
    const snapshot = this.#actor.getSnapshot();
    return snapshot.matches("ready") ? snapshot.context.link?.protocolVersion : undefined;
  }

  /** The running server's pid, while the connection answers over stdio. */
  get pid(): number | undefined {
    const snapshot = this.#actor.getSnapshot();
    return snapshot.matches("ready") ? snapshot.context.link?.pid : undefined;
  }

  /**
   * The connection as it answers now, starting the server if needed.
   *
   * @throws {SpillwayError} `tool_unavailable` when the server cannot be
   *   started or the connection is closed
   */
  ready(): Promise<LiveConnection> {
    const snapshot = this.#actor.getSnapshot();
    if (snapshot.matches("ready")) {
      const { link, tools, names } = snapshot.context;
      if (link !== undefined) return Promise.resolve({ link, tools, names });
    }
    if (this.closed) {
      return Promise.reject(
        new SpillwayError("tool_unavailable", `${this.name} is closed`, { source: this.name }),
      );
    }
    const attempt = this.#attempt ?? Promise.withResolvers<LiveConnection>();
    this.#attempt = attempt;
    this.#actor.send({ type: "connect" });
    return attempt.promise;
  }

  /** Calls `listener` whenever the server's tools were listed anew. */
  onToolsChanged(listener: () => void): () => void {
    this.#toolListeners.add(listener);
    return () => this.#toolListeners.delete(listener);
  }

  /**
   * Calls `listener` when the server says its prompts or its resources
   * changed, and for both when it answers again after its first start (a
   * new process or MCP session may list other ones).
   */
  onCatalogChanged(listener: (kind: "prompts" | "resources") => void): () => void {
    this.#catalogListeners.add(listener);
    return () => this.#catalogListeners.delete(listener);
  }

  /** The server's capabilities from its `initialize` answer (starting it if needed). */
  async capabilities(): Promise<ServerCapabilities> {
    return (await this.ready()).link.capabilities;
  }

  /** One page of the server's prompts, under the start-up timeout. */
  async listPrompts(cursor: string | undefined): Promise<CatalogPage<Prompt>> {
    const { client } = (await this.ready()).link;
    const page = await client.request(
      { method: "prompts/list", params: this.#cursor(cursor) },
      this.#listing,
    );
    return { items: page.prompts, nextCursor: page.nextCursor };
  }

  /** One page of the server's resources, under the start-up timeout. */
  async listResources(cursor: string | undefined): Promise<CatalogPage<Resource>> {
    const { client } = (await this.ready()).link;
    const page = await client.request(
      { method: "resources/list", params: this.#cursor(cursor) },
      this.#listing,
    );
    return { items: page.resources, nextCursor: page.nextCursor };
  }

  /** One page of the server's resource templates, under the start-up timeout. */
  async listResourceTemplates(cursor: string | undefined): Promise<CatalogPage<ResourceTemplate>> {
    const { client } = (await this.ready()).link;
    const page = await client.request(
      { method: "resources/templates/list", params: this.#cursor(cursor) },
      this.#listing,
    );
    return { items: page.resourceTemplates, nextCursor: page.nextCursor };
  }

  /** `prompts/get` on the server, under `options.signal` and `options.timeout`. */
  async getPrompt(
    params: GetPromptRequest["params"],
    options: CatalogRequestOptions,
  ): Promise<GetPromptResult> {
    const { signal, timeout } = options;
    try {
      return await (await this.ready()).link.client.getPrompt(params, { signal, timeout });
    } catch (error) {
      throw inputRequiredError(this.name, "prompts/get", error) ?? error;
    }
  }

  /** `resources/read` on the server, under `options.signal` and `options.timeout`. */
  async readResource(
    params: ReadResourceRequest["params"],
    options: CatalogRequestOptions,
  ): Promise<ReadResourceResult> {
    const { signal, timeout } = options;
    try {
      return await (await this.ready()).link.client.readResource(params, { signal, timeout });
    } catch (error) {
      throw inputRequiredError(this.name, "resources/read", error) ?? error;
    }
  }

  /** `completion/complete` on the server, under `options.signal` and `options.timeout`. */
  async complete(
    params: CompleteRequest["params"],
    options: CatalogRequestOptions,
  ): Promise<CompleteResult> {
    const { signal, timeout } = options;
    return await (await this.ready()).link.client.complete(params, { signal, timeout });
  }

  /**
   * Subscribes to resource `uri` on the server, on the first subscription
   * of this connection's principal to it (its other sessions share it).
   */
  async subscribe(uri: string, options: CatalogRequestOptions): Promise<void> {
    const { link } = await this.ready();
    await this.#subscriptions.subscribe(link, uri, options);
  }

  /** Ends one subscription to `uri`; the last one ends it on the server. */
  async unsubscribe(uri: string, options: CatalogRequestOptions): Promise<void> {
    const { link } = await this.ready();
    await this.#subscriptions.unsubscribe(link, uri, options);
  }

  /** Calls `listener` when the server says a subscribed resource was updated. */
  onResourceUpdated(listener: (uri: string) => void): () => void {
    this.#updateListeners.add(listener);
    return () => this.#updateListeners.delete(listener);
  }

  /**
   * Stops the server (at once, even in its handshake) and ends the actor.
   * Idempotent.
   */
  async close(): Promise<void> {
    if (this.#actor.getSnapshot().status !== "done") this.#actor.send({ type: "close" });
    await new Promise<void>((resolve) => {
      const subscription = this.#actor.subscribe({
        complete: () => resolve(),
        error: () => resolve(),
      });
      if (this.#actor.getSnapshot().status === "done") {
        subscription.unsubscribe();
        resolve();
      }
    });
  }

  /** A listing is part of the server's start: it gets the start-up timeout. */
  get #listing(): { readonly timeout: number } {
    return { timeout: this.startupTimeoutMs };
  }

  /**
   * One page's params: `request` rather than the SDK's `list*()`, which
   * without a cursor walk every page themselves (and so would hide a server
   * whose pages loop behind the SDK's own page limit).
   */
  #cursor(cursor: string | undefined): { cursor?: string } {
    return cursor === undefined ? {} : { cursor };
  }

  #tell(kind: "prompts" | "resources"): void {
    for (const listener of this.#catalogListeners) listener(kind);
  }

  /** Settles the start callers wait for, if one is under way. */
  #settle(settle: (attempt: PromiseWithResolvers<LiveConnection>) => void): void {
    const attempt = this.#attempt;
    this.#attempt = undefined;
    if (attempt !== undefined) settle(attempt);
  }
}
