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

import { Client, SdkError, SdkErrorCode, type ServerCapabilities } from "../sdk.ts";
import { settlesWithin } from "../subprocess/settles_within.ts";
import type { ToolDefinition } from "../tool_source.ts";
import { MAX_TIMER_MS } from "../tool_timeout.ts";
import { HttpUpstreamTransport } from "./http_upstream_transport.ts";
import {
  LineStdioClientTransport,
  type LineStdioClientTransportOptions,
} from "./line_stdio_client_transport.ts";
import { logReplyFault } from "./_upstream_log.ts";
import type { UpstreamCallRelays } from "./upstream_call_relays.ts";
import { isBrokenPipe } from "../../platform/file_errors.ts";
import type { ExitStatus } from "../../platform/processes.ts";

/** How spillway introduces itself to upstream servers. */
const CLIENT_INFO = { name: "spillway", version: "0.1.0" };

/**
 * How long a failed request may wait for the transport to report that the
 * server went away, so that a write into a dead pipe is reported as a lost
 * call rather than an I/O error.
 */
const LOSS_CONFIRMATION_MS = 1_000;

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
  #ended = false;

  /**
   * Makes the transport and the client, with the relays' handlers and
   * `events` installed. Nothing is started until {@linkcode initialize}.
   */
  constructor(
    name: string,
    server: UpstreamServer,
    options: { readonly relays: UpstreamCallRelays; readonly events: LinkEvents },
  ) {
    this.name = name;
    const { relays, events } = options;
    this.#transport = server.kind === "http"
      ? new HttpUpstreamTransport({
        url: server.url,
        ...(server.headers === undefined ? {} : { headers: server.headers }),
      })
      : new LineStdioClientTransport(server.process);
    const { promise: closed, resolve: markClosed } = Promise.withResolvers<void>();
    this.closed = closed;
    const client = new Client(CLIENT_INFO, { capabilities: relays.capabilities });
    relays.install(client);
    // Malformed replies and transport faults reach the client's handler.
    client.onerror = (error) => logReplyFault(name, error);
    client.setNotificationHandler("notifications/tools/list_changed", () => events.toolsChanged());
    client.setNotificationHandler(
      "notifications/prompts/list_changed",
      () => events.catalogChanged("prompts"),
    );
    client.setNotificationHandler(
      "notifications/resources/list_changed",
      () => events.catalogChanged("resources"),
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
   * The `initialize` handshake. Not cancellable (MCP forbids cancelling it):
   * a start that takes too long is ended by stopping the transport under it.
   */
  initialize(): Promise<void> {
    return this.client.connect(this.#transport, { timeout: MAX_TIMER_MS });
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
