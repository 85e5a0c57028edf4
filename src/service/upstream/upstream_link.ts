/**
 * One life of an upstream connection: a transport to the server (its
 * process's stdio, or its HTTP endpoint) and the SDK client on it, from the
 * moment it is opened to the moment it closed. The connection machine
 * ({@linkcode upstreamConnectionMachine}) opens a new link for every start
 * and hears from it through {@linkcode LinkEvents}; callers hold the link of
 * the connection they were answered on, so a call that was in flight when
 * its server went away can tell why (`lossText`), whatever the connection
 * did since.
 *
 * @module
 */

import {
  Client,
  type McpSubscription,
  SdkError,
  SdkErrorCode,
  type ServerCapabilities,
  type SubscriptionFilter,
} from "../sdk.ts";
import { settlesWithin } from "../subprocess/settles_within.ts";
import type { ToolDefinition } from "../tool_source.ts";
import { MAX_TIMER_MS } from "../tool_timeout.ts";
import { HttpUpstreamTransport } from "./http_upstream_transport.ts";
import {
  LineStdioClientTransport,
  type LineStdioClientTransportOptions,
} from "./line_stdio_client_transport.ts";
import { logListenFailure, logNegotiated, logReplyFault } from "./_upstream_log.ts";
import type { UpstreamCallRelays } from "./upstream_call_relays.ts";
import { isBrokenPipe } from "../../platform/file_errors.ts";
import type { ExitStatus } from "../../platform/processes.ts";
import {
  MODERN_PROTOCOL,
  type ProtocolVerdict,
  type UpstreamProtocol,
  versionNegotiation,
} from "./upstream_protocol.ts";

/** How spillway introduces itself to upstream servers. */
const CLIENT_INFO = { name: "spillway", version: "0.1.0" };

/**
 * How long a failed request may wait for the transport to report that the
 * server went away, so that a write into a dead pipe is reported as a lost
 * call rather than an I/O error.
 */
const LOSS_CONFIRMATION_MS = 1_000;

/** What the SDK's client reports of an answer to a `server/discover` probe it gave up on. */
const LATE_PROBE_ANSWER = /server-discover-probe-\d+/;

/** Where the server is: a process spillway runs, or an endpoint it connects to. */
export type UpstreamServer =
  | {
    /** Spillway runs the server and talks to it over its stdio. */
    readonly kind: "stdio";
    /** The transport's options: command, arguments, environment, stderr, grace. */
    readonly process: LineStdioClientTransportOptions;
  }
  | {
    /** The server runs elsewhere: Streamable HTTP. */
    readonly kind: "http";
    /** Its MCP endpoint. */
    readonly url: string;
    /** Headers sent with every request. */
    readonly headers?: Readonly<Record<string, string>>;
  };

/** What a link tells its connection. */
export interface LinkEvents {
  /** The transport closed by itself: the server exited or is gone. */
  gone(): void;
  /** The server said its tools changed (`notifications/tools/list_changed`). */
  toolsChanged(): void;
  /** The server said its prompts or resources changed. */
  catalogChanged(kind: "prompts" | "resources"): void;
  /** The server said a subscribed resource changed (`notifications/resources/updated`). */
  resourceUpdated(uri: string): void;
}

/** Which revision a link speaks, and what `auto` knows of the server already. */
export interface LinkProtocol {
  /** `providers.mcp.<name>.protocol`. */
  readonly protocol: UpstreamProtocol;
  /** The verdict of `auto`, shared by the server's connections. */
  readonly verdict: ProtocolVerdict;
  /** The start-up timeout, in ms: the probe gets part of it. */
  readonly startupTimeoutMs: number;
}

/** A transport to one upstream server and the SDK client on it. */
export class UpstreamLink {
  /** The source name, `"mcp.<server>"`. */
  readonly name: string;
  /** The SDK client; connected by {@linkcode initialize}. */
  readonly client: Client;
  /** Resolves when the transport closed (the server went away, or we closed it). */
  readonly closed: Promise<void>;
  readonly #transport: LineStdioClientTransport | HttpUpstreamTransport;
  readonly #protocol: LinkProtocol;
  /** The `subscriptions/listen` stream a 2026-07-28 server sends its list changes on. */
  #listening: McpSubscription | undefined;
  #ended = false;

  /**
   * Makes the transport and the client, with the relays' handlers and
   * `events` installed. Nothing is started until {@linkcode initialize}.
   */
  constructor(
    name: string,
    server: UpstreamServer,
    options: {
      readonly relays: UpstreamCallRelays;
      readonly events: LinkEvents;
      readonly protocol: LinkProtocol;
    },
  ) {
    this.name = name;
    const { relays, events } = options;
    this.#protocol = options.protocol;
    this.#transport = server.kind === "http"
      ? new HttpUpstreamTransport({
        url: server.url,
        ...(server.headers === undefined ? {} : { headers: server.headers }),
      })
      : new LineStdioClientTransport(server.process);
    const { promise: closed, resolve: markClosed } = Promise.withResolvers<void>();
    this.closed = closed;
    const client = new Client(CLIENT_INFO, {
      capabilities: relays.capabilities,
      versionNegotiation: versionNegotiation(
        options.protocol.protocol,
        options.protocol.startupTimeoutMs,
      ),
      // A 2026-07-28 server asks for input in its result (input_required): the
      // SDK fulfils it through the same sampling and elicitation handlers a
      // 2025 server's requests reach (`relays.install`), so the call's caller
      // is asked, and the call goes on with the answers.
      inputRequired: { autoFulfill: true },
    });
    relays.install(client);
    // Malformed replies and transport faults reach the client's handler.
    client.onerror = (error) => {
      // A server that answers the era probe after its time limit (a slow
      // start) was taken for a 2025 one: its late answer is no fault.
      if (LATE_PROBE_ANSWER.test(error.message)) return;
      logReplyFault(name, error);
    };
    client.setNotificationHandler("notifications/tools/list_changed", () => events.toolsChanged());
    client.setNotificationHandler(
      "notifications/prompts/list_changed",
      () => events.catalogChanged("prompts"),
    );
    client.setNotificationHandler(
      "notifications/resources/list_changed",
      () => events.catalogChanged("resources"),
    );
    client.setNotificationHandler(
      "notifications/resources/updated",
      (notification) => events.resourceUpdated(notification.params.uri),
    );
    this.client = client;
    // Set before connect(): the SDK chains its own handler after ours, so the
    // loss is known by the time it fails the requests in flight.
    this.#transport.onclose = () => {
      this.#ended = true;
      markClosed();
      if (!this.#transport.closedByUs) events.gone();
    };
  }

  /** Whether the transport closed. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The server's pid (its process group id) while it runs; none over HTTP. */
  get pid(): number | undefined {
    return this.#ended ? undefined : this.#transport.pid;
  }

  /** The transport, for what a failed start says about it. */
  get transport(): LineStdioClientTransport | HttpUpstreamTransport {
    return this.#transport;
  }

  /**
   * The handshake: `initialize` (2025-11-25), or `server/discover`
   * (2026-07-28), or under `auto` the probe that picks one, unless an
   * earlier connection's verdict says which. Not cancellable (MCP forbids
   * cancelling `initialize`): a start that takes too long is ended by
   * stopping the transport under it. On 2026-07-28, the server's list
   * changes are then listened for (a failure to is logged, not fatal).
   */
  async initialize(): Promise<void> {
    const { protocol, verdict } = this.#protocol;
    const prior = protocol === "auto" ? verdict.prior : undefined;
    try {
      await this.client.connect(this.#transport, {
        timeout: MAX_TIMER_MS,
        ...(prior === undefined ? {} : { prior }),
      });
    } catch (error) {
      // Some 2025 stdio servers exit on any request before `initialize`:
      // probed in place, such a server is known by its exit.
      const exitedOnProbe = protocol === "auto" && prior === undefined &&
        this.#transport.exitStatus !== undefined && !this.#transport.closedByUs;
      if (exitedOnProbe) verdict.exitedOnProbe();
      throw error;
    }
    if (protocol === "auto") verdict.keep(this.client);
    logNegotiated(this.name, this.protocolVersion ?? "?", prior !== undefined);
    if (this.modern) await this.#listen();
  }

  /** The revision the server speaks on this link (`"2026-07-28"`, `"2025-11-25"`…), once connected. */
  get protocolVersion(): string | undefined {
    return this.client.getNegotiatedProtocolVersion();
  }

  /** Whether the link speaks 2026-07-28 (stateless, per-request envelope). */
  get modern(): boolean {
    return this.protocolVersion === MODERN_PROTOCOL;
  }

  /**
   * Opens the `subscriptions/listen` stream for the lists the server says
   * change: a 2026-07-28 server sends `list_changed` only there. Its
   * notifications reach the handlers installed in the constructor.
   */
  async #listen(): Promise<void> {
    const capabilities = this.capabilities;
    const filter: SubscriptionFilter = {
      ...(capabilities.tools?.listChanged ? { toolsListChanged: true as const } : {}),
      ...(capabilities.prompts?.listChanged ? { promptsListChanged: true as const } : {}),
      ...(capabilities.resources?.listChanged ? { resourcesListChanged: true as const } : {}),
    };
    if (Object.keys(filter).length === 0) return;
    try {
      this.#listening = await this.client.listen(filter, {
        timeout: this.#protocol.startupTimeoutMs,
      });
    } catch (error) {
      logListenFailure(this.name, error);
    }
  }

  /** The server's capabilities from its `initialize` answer. */
  get capabilities(): ServerCapabilities {
    return this.client.getServerCapabilities() ?? {};
  }

  /** Every page of the server's tools; `signal` cancels the request. */
  async listTools(signal: AbortSignal): Promise<ToolDefinition[]> {
    const tools: ToolDefinition[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      // One page at a time (the SDK's `listTools()` walks them all itself):
      // a server whose pages loop is caught here.
      const page = await this.client.request(
        { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
        { signal, timeout: MAX_TIMER_MS },
      );
      for (const tool of page.tools) {
        tools.push({
          name: tool.name,
          description: tool.description ?? "",
          inputSchema: tool.inputSchema,
          title: tool.title,
          outputSchema: tool.outputSchema,
          annotations: tool.annotations,
          meta: tool._meta,
        });
      }
      cursor = page.nextCursor;
      if (cursor !== undefined && seen.has(cursor)) {
        throw new TypeError(`it repeated the tools/list cursor \`${cursor}\``);
      }
      if (cursor !== undefined) seen.add(cursor);
    } while (cursor !== undefined);
    return tools;
  }

  /** Stops the server (stdin EOF, then SIGTERM, then SIGKILL) or ends the HTTP session. */
  stop(): Promise<void> {
    return this.#transport.close();
  }

  /** Closes the client, then stops the server. */
  async close(): Promise<void> {
    await this.#listening?.close().catch(() => {});
    await this.client.close();
    await this.#transport.close();
  }

  /** Whether `error` came from the server going away (rather than from the server's answer). */
  async wasLost(error: unknown): Promise<boolean> {
    if (this.#ended) return true;
    // A write into a dead server's pipe can fail before its exit is reported.
    const ioFailure = this.#transport.closing ||
      (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) ||
      isBrokenPipe(error);
    if (!ioFailure) return false;
    await settlesWithin(this.closed, LOSS_CONFIRMATION_MS);
    return this.#ended;
  }

  /** How the link ended: `upstream server mcp.x exited (code 3)`, `… was closed`, `… stopped answering (…)`. */
  lossText(): string {
    const transport = this.#transport;
    if (transport instanceof HttpUpstreamTransport && transport.gone !== undefined) {
      return `upstream server ${this.name} stopped answering (${transport.gone})`;
    }
    const status = transport.exitStatus;
    if (transport.closedByUs || status === undefined) {
      return `upstream server ${this.name} was closed`;
    }
    return `upstream server ${this.name} exited (${describeExit(status)})`;
  }
}

/** `code 3`, `signal SIGKILL`: how a process exited. */
export function describeExit(status: ExitStatus): string {
  return status.signal === null ? `code ${status.code}` : `signal ${status.signal}`;
}
