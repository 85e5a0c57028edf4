/**
 * `spillway serve`'s engine: the configured tool sources behind one
 * execution service, and one MCP server plus one {@linkcode SessionHost} per
 * client session. Every client call is capped, recorded in the session's
 * conversation stream and released exactly as the runtime's own calls are;
 * the transports (stdio, Streamable HTTP) only connect clients to it.
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import type { InspectionEvent } from "xstate";
import { join, resolve } from "node:path";
import { DEFAULT_CLIENT } from "../config/serve_config.ts";
import type { SpillwayConfig } from "../config/spillway_config.ts";
import { Duration } from "../config/duration.ts";
import type { Prompter } from "../machines/prompter.ts";
import type { NoticeSink, PolicyFor } from "../machines/turn_dependencies.ts";
import { formatNotice } from "../review/notice.ts";
import { sanitizeForTerminal } from "../terminal/sanitize.ts";
import { cachedPolicies, refuseToolsNeedingPerson } from "../runtime/tool_policies.ts";
import { outputOptions } from "../runtime/output_options.ts";
import { blobDirectory, spillFromConfig } from "../runtime/spill_from_config.ts";
import type { BlobStore } from "../blobs/blob_store.ts";
import { FileBlobStore } from "../blobs/file_blob_store.ts";
import { toolSourcesFromConfig } from "../runtime/tool_sources_from_config.ts";
import type { BuiltinTool } from "../service/builtin/builtin_tool.ts";
import { ExecutionService } from "../service/execution_service.ts";
import { McpUpstreamSource } from "../service/upstream/mcp_upstream_source.ts";
import { LateUpstreamSource } from "../service/upstream/late_upstream_source.ts";
import type { BarrierKind } from "../service/executor.ts";
import type { Server, ServerCapabilities, Tool, Transport } from "../service/sdk.ts";
import type { ByteSize } from "../size/byte_size.ts";
import { FileStreamStore } from "../stream/file_stream_store.ts";
import { newConversationId } from "../stream/new_conversation_id.ts";
import { ClientConversationId } from "./client_conversation_id.ts";
import { hiddenFromFileTools } from "./hidden_from_file_tools.ts";
import type { StreamStore } from "../stream/stream_store.ts";
import { createSessionServer } from "./_session_server.ts";
import type { SessionCeiling } from "./session_ceiling.ts";
import { SessionLimits } from "./_session_limits.ts";
import { serveCatalog } from "./serve_catalog.ts";
import { UpstreamCatalog } from "./upstream_catalog.ts";
import { SessionHost } from "./session_host.ts";
import { ClientRegistry } from "./client_registry.ts";

/**
 * How often a parked call whose client sent a progress token gets a
 * keep-alive progress notification: 15 s, well inside the 60 s request
 * timeout of the MCP SDK's clients (which reset it on progress when asked).
 */
export const PARK_PROGRESS_INTERVAL_MS = 15_000;

/** Options of {@linkcode Gateway.start}. */
export interface GatewayOptions {
  /** The configuration (tools, thresholds, upstream servers). */
  readonly config: SpillwayConfig;
  /** Where conversations are recorded: `<workspace>/conversations`. */
  readonly workspace: string;
  /** Root of the builtin file tools and local commands. Default: the current directory. */
  readonly cwd?: string;
  /**
   * The client ceiling of every session (`--client-ceiling`). Each session
   * also gets its client's own ceiling (`session_ceiling.ts`), with
   * `[serve.client_ceilings]` over the known ones. Default: none.
   */
  readonly clientCeiling?: ByteSize | undefined;
  /** Asks a person under `ask`/`edit`. Default: none (such tools are refused at start). */
  readonly prompter?: Prompter | undefined;
  /** Prints notices. Default: one line on stderr each. */
  readonly noticeSink?: NoticeSink;
  /** The stream store. Default: files under `<workspace>/conversations`. */
  readonly store?: StreamStore;
  /** Where spilled outputs are kept. Default: files under `<workspace>/blobs`. */
  readonly blobs?: BlobStore;
  /**
   * Builtin tools registered in code. Default: none. The file tools
   * (`fs_list_files`, `fs_read_file`) are served only when the configuration
   * has an entry for them.
   */
  readonly tools?: readonly BuiltinTool[];
  /** Where upstream servers' stderr goes (`"inherit"`, `"null"`, or a text sink). Default `"inherit"`. */
  readonly upstreamStderr?: "inherit" | "null" | ((text: string) => void);
  /** Receives what a person should know (an upstream server started again). Default: the log. */
  readonly warn?: (message: string) => void;
  /** See {@linkcode PARK_PROGRESS_INTERVAL_MS}. Default: that constant. */
  readonly parkProgressIntervalMs?: number;
  /**
   * The receiver of one session's XState inspection events (its phases), per
   * session id (`serve --inspect FILE`). Default: none.
   */
  readonly inspect?: (session: string) => (event: InspectionEvent) => void;
  /**
   * The clients the gateway tells apart by their tokens (`default`, and each
   * `[serve.tokens.NAME]`). Each has its own connection to every upstream
   * server, stopped when its last session ends. With more than one, each
   * conversation records its client and each notice names it. Default: the
   * default client alone.
   */
  readonly clients?: readonly string[];
}

/** Options of {@linkcode Gateway.connect}. */
export interface ConnectOptions {
  /** The session id. Default: a random UUID. */
  readonly id?: string;
  /**
   * The client the session belongs to: the one whose token opened it
   * (`default`, or NAME of `[serve.tokens.NAME]`). Default: `default`.
   */
  readonly client?: string;
  /**
   * How long the session may go without a request before it closes itself
   * (its files released, its server closed), in ms. Default: never (a
   * stdio client's one session lasts as long as its stdin).
   */
  readonly idleTimeoutMs?: number;
}

/** One connected client session. */
export interface GatewaySession {
  /** The session id. */
  readonly id: string;
  /** The client it belongs to. */
  readonly client: string;
  /** The conversation it records into. */
  readonly conversationId: string;
  /** Its MCP server. */
  readonly server: Server;
  /**
   * Says the client sent something other than a call (a listing, a ping):
   * an idle session's timeout starts again.
   */
  touch(): void;
  /** Disconnects it: its running calls are cancelled (and recorded as such). */
  close(): Promise<void>;
}

/** Options of {@linkcode Gateway.connect}. */
const log = getLogger(["spillway", "gateway"]);

/** Notices name tools (from upstream servers, clients, config): one inert line each. */
const stderrNotices: NoticeSink = {
  notice: (fact) => console.error(sanitizeForTerminal(formatNotice(fact), { singleLine: true })),
};

/** The gateway: start it, connect clients, close it. */
export class Gateway {
  readonly #options: GatewayOptions;
  readonly #service: ExecutionService;
  readonly #policyFor: PolicyFor;
  readonly #store: StreamStore;
  readonly #sessions = new Map<string, GatewaySession>();
  readonly #hosts = new Map<string, SessionHost>();
  /** What each session lists and enforces, by its client ceiling. */
  readonly #limits: SessionLimits;
  /** Each client's sessions: its upstream connections go with its last one. */
  readonly #clients: ClientRegistry;
  /** The upstream servers' prompts and resources, once listed. */
  #catalog: UpstreamCatalog | undefined;
  #nextCall = 0;
  #closing: Promise<void> | undefined;

  /** The upstream servers, each of which may not answer yet. */
  #late: readonly LateUpstreamSource[] = [];

  private constructor(options: GatewayOptions, service: ExecutionService, policyFor: PolicyFor) {
    this.#options = options;
    this.#service = service;
    this.#policyFor = policyFor;
    this.#store = options.store ??
      new FileStreamStore(join(resolve(options.workspace), "conversations"));
    this.#clients = new ClientRegistry({
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
      for (const session of gateway.#sessions.values()) {
        void session.server.sendToolListChanged().catch(() => {});
      }
    });
    // A client's connection says its prompts or resources changed: tell that client's sessions.
    gateway.#catalog.onChanged((kind, client) => {
      for (const { server } of gateway.sessions.filter((session) => session.client === client)) {
        const sent = kind === "prompts"
          ? server.sendPromptListChanged()
          : server.sendResourceListChanged();
        void sent.catch(() => {});
      }
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
    return [...this.#sessions.values()];
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
    };
  }

  /**
   * Connects a client over `transport` as a new session.
   *
   * @param transport the client's transport (not started yet)
   * @param options its id, its client and its idle timeout; see {@linkcode ConnectOptions}
   */
  async connect(transport: Transport, options: ConnectOptions = {}): Promise<GatewaySession> {
    if (this.#closing !== undefined) throw new TypeError("spillway serve is shutting down");
    const id = options.id ?? crypto.randomUUID();
    const client = options.client ?? DEFAULT_CLIENT;
    // With clients of their own tokens, each one's conversations are apart and named.
    const named = (this.#options.clients?.length ?? 1) > 1;
    const conversationId = named ? ClientConversationId.create(client) : newConversationId();
    const notices = this.#options.noticeSink ?? stderrNotices;
    // The session's ceiling is its client's, known once it has initialized
    // (read by the policies and the tool list, which only run after `server` exists).
    let ceiling: { readonly value: SessionCeiling | undefined } | undefined;
    const ceilingNow = () => {
      if (ceiling !== undefined) return ceiling.value;
      const clientInfo = server.getClientVersion();
      const value = this.#limits.ceilingOf(clientInfo);
      if (clientInfo !== undefined) ceiling = { value };
      return value;
    };
    const host = new SessionHost({
      service: this.#service,
      session: id,
      store: this.#store,
      conversationId,
      policyFor: (tool) => this.#limits.policy(ceilingNow(), tool),
      prompter: this.#options.prompter ?? refusingPrompter,
      noticeSink: named
        ? { notice: (fact) => notices.notice({ ...fact, principal: client }) }
        : notices,
      available: () => this.#service.list().map((tool) => tool.name),
      unavailableNote: () => notAnsweringNote(this.#late),
      ...(this.#options.inspect === undefined ? {} : { inspect: this.#options.inspect(id) }),
      ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
    });
    const server = createSessionServer({
      session: id,
      client,
      service: this.#service,
      host,
      tools: () => this.#limits.tools(ceilingNow()),
      capabilities: this.capabilities,
      serverInfo: { name: "spillway", version: "0.1.0" },
      nextCallId: () => `call_${++this.#nextCall}`,
      parkProgressIntervalMs: this.#options.parkProgressIntervalMs ?? PARK_PROGRESS_INTERVAL_MS,
      disconnected: () => disconnected,
      closeRequestStream: (requestId) =>
        (transport as { closeSSEStream?: (id: typeof requestId) => void }).closeSSEStream?.(
          requestId,
        ),
    });
    // Set before the SDK sees the transport close (it then aborts every
    // request in flight): those aborts are the disconnection, not the client's.
    let disconnected = false;
    const onTransportClose = transport.onclose;
    transport.onclose = () => {
      disconnected = true;
      onTransportClose?.();
    };
    let closed: Promise<void> | undefined;
    const session: GatewaySession = {
      id,
      client,
      conversationId,
      server,
      touch: () => host.touch(),
      close: () => {
        closed ??= (async () => {
          this.#sessions.delete(id);
          this.#hosts.delete(id);
          // Its running calls are cancelled; the cancellations are recorded
          // (the client is gone, but the conversation keeps what happened).
          host.stop("the client disconnected", { by: "disconnect" });
          await server.close();
          await host.drained();
          await host.close();
          // The client's last session: its upstream servers are stopped.
          await this.#clients.closed(client, id);
        })();
        return closed;
      },
    };
    server.oninitialized = () => this.#limits.tell(server.getClientVersion());
    server.onclose = () => void session.close();
    // A session that went idle closed itself: its server goes with it.
    void host.ended.then((end) => {
      if (end.reason !== "idle") return;
      log.info("session {session} closed: no request for {timeout} (serve.session_idle_timeout)", {
        session: id,
        timeout: Duration.fromMs(options.idleTimeoutMs ?? 0).toString(),
      });
      void session.close();
    });
    // What the transport or the protocol could not handle (a line that is not
    // JSON-RPC, a reply to nothing) is skipped; `-v` shows it.
    server.onerror = (error) => log.warn("session {session}: {error}", { session: id, error });
    this.#sessions.set(id, session);
    this.#hosts.set(id, host);
    this.#clients.opened(client, id);
    if (this.#catalog !== undefined) {
      serveCatalog(server, this.#catalog, {
        blobs: this.#service.blobStore,
        owners: this.#service.blobOwners,
        principal: client,
      });
    }
    await server.connect(transport);
    return session;
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
      const hosts = [...this.#hosts.values()];
      for (const host of hosts) host.stop(reason, { by: "shutdown", reason });
      await Promise.allSettled(hosts.map((host) => host.drained()));
      await this.#service.close();
      await Promise.allSettled([...this.#sessions.values()].map((session) => session.close()));
    })();
    return this.#closing;
  }
}

const refusingPrompter: Prompter = {
  ask: () => Promise.reject(new Error("no terminal is attached to ask")),
  edit: () => Promise.reject(new Error("no terminal is attached to edit")),
};

/**
 * What the answer to an unknown tool adds while upstream servers do not
 * answer: `the tools of upstream servers that do not answer yet are not
 * listed: cannot start upstream server mcp.x: it did not answer initialize
 * within 30 s (it is started again in the background)`.
 */
function notAnsweringNote(sources: readonly LateUpstreamSource[]): string | undefined {
  const down = sources.flatMap((source) => source.down === undefined ? [] : [source.down]);
  if (down.length === 0) return undefined;
  return `the tools of upstream servers that do not answer yet are not listed: ${
    down.join("; ")
  } (started again in the background)`;
}
