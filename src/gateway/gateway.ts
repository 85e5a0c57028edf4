/**
 * `spillway serve`'s engine: the configured tool sources behind one
 * execution service, and one MCP server plus one `SessionHost` per client
 * session (`_open_session.ts`). Every client call is capped, recorded in the
 * session's conversation stream and released exactly as the runtime's own
 * calls are; the transports (stdio, Streamable HTTP) only connect clients to
 * it.
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { join, resolve } from "node:path";
import type { PolicyFor } from "../machines/turn_dependencies.ts";
import { cachedPolicies, refuseToolsNeedingPerson } from "../runtime/tool_policies.ts";
import { outputOptions } from "../runtime/output_options.ts";
import { blobDirectory, spillFromConfig } from "../runtime/spill_from_config.ts";
import { FileBlobStore } from "../blobs/file_blob_store.ts";
import { toolSourcesFromConfig } from "../runtime/tool_sources_from_config.ts";
import { ExecutionService } from "../service/execution_service.ts";
import { McpUpstreamSource } from "../service/upstream/mcp_upstream_source.ts";
import { LateUpstreamSource } from "../service/upstream/late_upstream_source.ts";
import type { BarrierKind } from "../service/executor.ts";
import type { ServerCapabilities, Tool, Transport } from "../service/sdk.ts";
import { FileStreamStore } from "../stream/file_stream_store.ts";
import type { StreamStore } from "../stream/stream_store.ts";
import type { ConnectOptions } from "./connect_options.ts";
import type { GatewayOptions } from "./gateway_options.ts";
import type { GatewaySession } from "./gateway_session.ts";
import { hiddenFromFileTools } from "./hidden_from_file_tools.ts";
import {
  type OpenConversation,
  openConversation,
  openSession,
  type OpenSessionOptions,
} from "./_open_session.ts";
import type { CatalogKind } from "./client_catalog.ts";
import { SessionLimits } from "./_session_limits.ts";
import { SessionRegistry } from "./_session_registry.ts";
import { UpstreamCatalog } from "./upstream_catalog.ts";

const log = getLogger(["spillway", "gateway"]);

/** The gateway: start it, connect clients, close it. */
export class Gateway {
  readonly #options: GatewayOptions;
  readonly #service: ExecutionService;
  readonly #policyFor: PolicyFor;
  readonly #store: StreamStore;
  /** The sessions connected now, and each client's. */
  readonly #sessions: SessionRegistry;
  /** What each session lists and enforces, by its client ceiling. */
  readonly #limits: SessionLimits;
  /** The upstream servers' prompts and resources, once listed. */
  #catalog: UpstreamCatalog | undefined;
  #nextCall = 0;
  /**
   * Ends the call ids of conversations other gateways write too (2026-07-28
   * ones): `call_7.3f9a2c1b` is unique among every gateway's and every
   * restart's calls of such a conversation.
   */
  readonly #callTag = crypto.randomUUID().slice(0, 8);
  readonly #listChanged: ((kind: "tools" | CatalogKind, client?: string) => void)[] = [];
  #closing: Promise<void> | undefined;

  /** The upstream servers, each of which may not answer yet. */
  #late: readonly LateUpstreamSource[] = [];

  private constructor(options: GatewayOptions, service: ExecutionService, policyFor: PolicyFor) {
    this.#options = options;
    this.#service = service;
    this.#policyFor = policyFor;
    this.#store = options.store ??
      new FileStreamStore(join(resolve(options.workspace), "conversations"));
    this.#sessions = new SessionRegistry({
      ...(options.clients === undefined ? {} : { clients: options.clients }),
      release: (client) => {
        // Its catalog was listed from the connections released with it.
        this.#catalog?.release(client);
        return service.release(client);
      },
    });
    this.#limits = new SessionLimits({
      config: options.config,
      policyFor,
      definitions: () => service.list(),
      flag: options.clientCeiling,
      warn: options.warn ??
        ((message) => log.warn(message.replaceAll("{", "{{").replaceAll("}", "}}"))),
    });
  }

  /**
   * Starts the tool sources and lists their tools. An upstream server that
   * cannot start (in its `startup_timeout`) is reported through `warn` and
   * started again in the background; its tools are served once it answers.
   *
   * @throws {SpillwayError} `config_invalid`, `terminal_required` (an
   *   `ask`/`edit` tool without a prompter)
   */
  static async start(options: GatewayOptions): Promise<Gateway> {
    const { config } = options;
    // The tools' own policies; each session applies its ceiling over them.
    const policyFor = cachedPolicies(config);
    const spilling = spillFromConfig(
      config,
      options.blobs ?? new FileBlobStore(blobDirectory(resolve(options.workspace))),
    );
    const cwd = resolve(options.cwd ?? Deno.cwd());
    const plan = toolSourcesFromConfig(config, {
      cwd,
      tools: [...(options.tools ?? []), ...(spilling?.tools ?? [])],
      // A gateway offers what it was configured to offer, no file tools of its own.
      builtins: "configured",
      // Every client's conversations and outputs: no file tool reads them.
      hidden: hiddenFromFileTools(options.workspace, cwd),
      ...(options.upstreamStderr === undefined ? {} : { upstreamStderr: options.upstreamStderr }),
      ...(options.warn === undefined ? {} : { warn: options.warn }),
      relayInquiries: true,
      // A server that is down is started again by itself (late_upstream_source.ts).
      restart: { when: "background" },
      // `serve --inspect`: the upstream connections' records name their source, not a session.
      ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
    });
    // A server that does not answer at start (or later) does not stop the
    // gateway: it serves the others, and that server's tools once it answers.
    const warn = options.warn ??
      ((message: string) => log.warn(message.replaceAll("{", "{{").replaceAll("}", "}}")));
    const late = plan.sources.map((source) =>
      source instanceof McpUpstreamSource ? new LateUpstreamSource(source, warn) : source
    );
    const barrierFor = (tool: string): BarrierKind => {
      const result = policyFor(tool).result;
      return result === "ask" || result === "edit" ? "review" : "record";
    };
    const service = new ExecutionService({
      sources: late,
      toolNames: plan.routes,
      barrierFor,
      ...(spilling === undefined ? {} : { spill: spilling.spill }),
      output: outputOptions(resolve(options.workspace), policyFor),
    });
    const gateway = new Gateway(options, service, policyFor);
    gateway.#late = late.filter((source) => source instanceof LateUpstreamSource);
    try {
      await service.start();
      if (options.prompter === undefined) {
        refuseToolsNeedingPerson(service.list().map((tool) => tool.name), config, policyFor);
      }
      gateway.#catalog = await UpstreamCatalog.load(
        plan.sources.flatMap((source) =>
          source instanceof McpUpstreamSource ? [source.catalog] : []
        ),
        options.warn ??
          ((message) => log.warn(message.replaceAll("{", "{{").replaceAll("}", "}}"))),
      );
    } catch (error) {
      await service.close();
      throw error;
    }
    gateway.#listTools();
    // An upstream's tools changed: list them anew and tell every client.
    service.onToolsChanged(() => {
      gateway.#listTools();
      gateway.#sessions.toolsChanged();
      for (const listener of gateway.#listChanged) listener("tools");
    });
    // A client's connection says its prompts or resources changed: tell that client's sessions.
    gateway.#catalog.onChanged((kind, client) => {
      gateway.#sessions.catalogChanged(kind, client);
      for (const listener of gateway.#listChanged) listener(kind, client);
    });
    return gateway;
  }

  #listTools(): void {
    this.#limits.toolsChanged();
  }

  /** The tools as clients see them without a client ceiling of their own. */
  get tools(): readonly Tool[] {
    return this.#limits.tools(this.#limits.ceilingOf(undefined));
  }

  /** The upstream servers that do not answer now, each with why (their tools are not listed). */
  get notAnswering(): readonly { readonly source: string; readonly reason: string }[] {
    return this.#late.flatMap((source) =>
      source.down === undefined ? [] : [{ source: source.name, reason: source.down }]
    );
  }

  /** The sessions connected now. */
  get sessions(): readonly GatewaySession[] {
    return this.#sessions.sessions;
  }

  /**
   * What the gateway advertises at initialize: its tools and logging, the
   * upstream servers' prompts and resources, and resources also when it
   * serves stored outputs.
   */
  get capabilities(): ServerCapabilities {
    const upstream = this.#catalog?.capabilities ?? {};
    const resources = upstream.resources ??
      (this.#service.blobStore === undefined ? undefined : {});
    return {
      tools: { listChanged: true },
      logging: {},
      ...(upstream.prompts === undefined ? {} : { prompts: upstream.prompts }),
      ...(resources === undefined ? {} : { resources }),
      ...(upstream.completions === undefined ? {} : { completions: upstream.completions }),
    };
  }

  /**
   * Connects a client over `transport` as a new session.
   *
   * @param transport the client's transport (not started yet)
   * @param options its id, its client and its idle timeout; see {@linkcode ConnectOptions}
   */
  async connect(transport: Transport, options: ConnectOptions = {}): Promise<GatewaySession> {
    return await openSession(transport, this.#sessionOptions(options));
  }

  /**
   * Opens a conversation without a connection of its own: its servers are
   * made over it per connection (a stdio connection of either protocol
   * era) or per request (2026-07-28 over HTTP).
   *
   * @param options its id, its client and its idle timeout; see {@linkcode ConnectOptions}
   * @throws {TypeError} when the gateway is shutting down
   */
  open(options: ConnectOptions = {}): OpenConversation {
    return openConversation(this.#sessionOptions(options));
  }

  /** Says when the tools changed (every client) or a client's prompts or resources did. */
  onListChanged(listener: (kind: "tools" | CatalogKind, client?: string) => void): void {
    this.#listChanged.push(listener);
  }

  #sessionOptions(options: ConnectOptions): OpenSessionOptions {
    if (this.#closing !== undefined) throw new TypeError("spillway serve is shutting down");
    const sharedWith = options.conversationKey !== undefined;
    const store = this.#store;
    return {
      connect: options,
      gateway: this.#options,
      service: this.#service,
      // A 2026-07-28 conversation is written by every gateway its requests reach.
      store: sharedWith
        ? { open: (id) => store.open(id, { shared: true }), list: () => store.list() }
        : store,
      limits: this.#limits,
      registry: this.#sessions,
      late: this.#late,
      catalog: this.#catalog,
      capabilities: this.capabilities,
      nextCallId: sharedWith
        ? () => `call_${++this.#nextCall}.${this.#callTag}`
        : () => `call_${++this.#nextCall}`,
    };
  }

  /**
   * Stops, without leaving a call unrecorded: new calls and sessions are
   * refused with `reason`; running calls are cancelled and a person
   * reviewing a result is interrupted, so every phase ends and is recorded,
   * flushed and released (the cancelled calls with their
   * `cancellation_response`); then the tool sources are closed (upstream
   * servers stopped) and the sessions disconnected. Idempotent.
   *
   * @param reason what refused calls are told. Default: "spillway serve is shutting down".
   */
  close(reason = "spillway serve is shutting down"): Promise<void> {
    this.#closing ??= (async () => {
      const hosts = this.#sessions.hosts;
      for (const host of hosts) host.stop(reason, { by: "shutdown", reason });
      await Promise.allSettled(hosts.map((host) => host.drained()));
      await this.#service.close();
      await Promise.allSettled(this.#sessions.sessions.map((session) => session.close()));
    })();
    return this.#closing;
  }
}
