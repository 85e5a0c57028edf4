/**
 * An upstream MCP server as a tool source (`providers.mcp.<server>`):
 * spillway is its MCP client, over the linear-time
 * {@linkcode LineStdioClientTransport} (`type = "stdio"`: spillway runs the
 * server) or over Streamable HTTP ({@linkcode HttpUpstreamTransport},
 * `type = "http"`: the server runs elsewhere). Results pass through as the server
 * sent them (content blocks, `structuredContent`, `isError`), uncapped: the
 * Host caps them at phase end like any other result.
 *
 * Every call ends:
 *
 * - The server is started on the first `list()` or `call()`, and must answer
 *   the `initialize` handshake and the `tools/list` after it within its
 *   start-up timeout; otherwise it is killed and the start fails saying so.
 * - A call runs under its tool's timeout (the config's `timeout`, 120 s by
 *   default, as for every tool); when it passes, the request is cancelled
 *   (`notifications/cancelled`) and the call ends with the timeout result.
 * - A reply that cannot be read fails the call it answers at once. A reply
 *   that names no request (no id, `"id": null`) could answer any call
 *   waiting: every call waiting fails at once, saying why. Any other line
 *   that names no waiting request (stdout logging, an answer to an id never
 *   sent) is logged, and the calls still waiting end at their timeout at the
 *   latest.
 * - If the server exits (stdio), or cannot be reached or has forgotten our
 *   session (HTTP), the calls in flight are lost ({@linkcode ToolLostError});
 *   the next call starts it (connects) again and says so once (the `warn`
 *   option).
 *
 * Its reports go to spillway's structured log (category
 * `spillway.upstream`, shown by `-v`).
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { DEFAULT_STARTUP_TIMEOUT_SECONDS } from "../../config/builtin_defaults.ts";
import { SpillwayError } from "../../errors/spillway_error.ts";
import { CallDeadline } from "../call_deadline.ts";
import { SYSTEM_CLOCK, type TimerClock } from "../timer_clock.ts";
import { raceAbort } from "../race_abort.ts";
import { reasonText } from "../../errors/reason_text.ts";
import {
  CallToolResultSchema,
  Client,
  ErrorCode,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  type ServerCapabilities,
  ToolListChangedNotificationSchema,
} from "../sdk.ts";
import { settlesWithin } from "../subprocess/settles_within.ts";
import {
  type ToolCallOptions,
  type ToolDefinition,
  ToolLostError,
  type ToolResult,
  type ToolSource,
} from "../tool_source.ts";
import { describeIssues, malformedResultError, unknownToolError } from "../tool_source_faults.ts";
import {
  DEFAULT_TOOL_TIMEOUT_MS,
  MAX_TIMER_MS,
  requireTimeoutMs,
  timedOutResult,
  timedOutText,
} from "../tool_timeout.ts";
import {
  LineStdioClientTransport,
  type LineStdioClientTransportOptions,
} from "./line_stdio_client_transport.ts";
import { HttpUpstreamTransport } from "./http_upstream_transport.ts";
import { MALFORMED_REPLY_DATA_KEY, MalformedReplyError } from "./malformed_reply_error.ts";
import { InquiryFailedError, UpstreamCallRelays } from "./upstream_call_relays.ts";

/**
 * How long a started server gets to answer `initialize` (and then
 * `tools/list`) unless `providers.mcp.<name>.startup_timeout` says
 * otherwise: 30 s.
 */
export const DEFAULT_STARTUP_TIMEOUT_MS: number = DEFAULT_STARTUP_TIMEOUT_SECONDS * 1000;

/** How spillway introduces itself to upstream servers. */
const CLIENT_INFO = { name: "spillway", version: "0.1.0" };

/**
 * How long a failed request may wait for the transport to report that the
 * server went away, so that a write into a dead pipe is reported as a lost
 * call rather than an I/O error.
 */
const LOSS_CONFIRMATION_MS = 1_000;

const log = getLogger(["spillway", "upstream"]);

/** Options of {@linkcode McpUpstreamSource}. */
export interface McpUpstreamSourceOptions {
  /** The source name, `"mcp.<server>"`. */
  readonly name: string;
  /** The server's executable, for a server spillway runs (stdio). Exactly one of it and `url`. */
  readonly command?: string;
  /** The server's MCP endpoint, for a server reached over Streamable HTTP. */
  readonly url?: string;
  /** Headers sent to `url` with every request (e.g. `Authorization`). Default: none. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Its arguments. Default: none. */
  readonly args?: readonly string[];
  /** Variables added to the inherited environment (or the whole environment, with `clearEnv`). Default: none. */
  readonly env?: Readonly<Record<string, string>>;
  /** Whether the server gets `env` alone, nothing of spillway's own environment. Default: `false`. */
  readonly clearEnv?: boolean;
  /** Working directory. Default: the current directory. */
  readonly cwd?: string;
  /** Where the server's stderr goes. Default: `"inherit"`. */
  readonly stderr?: LineStdioClientTransportOptions["stderr"];
  /**
   * How long a call of `tool` (the server's name for it) may run, in ms.
   * Default: {@linkcode DEFAULT_TOOL_TIMEOUT_MS} for every tool.
   */
  readonly timeoutFor?: (tool: string) => number;
  /** How long the handshake may take. Default: {@linkcode DEFAULT_STARTUP_TIMEOUT_MS}. */
  readonly startupTimeoutMs?: number;
  /** Shutdown grace of the transport. Default: `STDIO_CLOSE_GRACE_MS`. */
  readonly closeGraceMs?: number;
  /**
   * Tells a person what they should know: that the server is being started
   * again after it exited. Default: the structured log only.
   */
  readonly warn?: (message: string) => void;
  /**
   * Whether callers can answer the server's sampling and elicitation
   * requests (`spillway serve` relays them to its clients): spillway then
   * declares those capabilities to the server. Default: `false`.
   */
  readonly relayInquiries?: boolean;
  /** The clock the time limits run on. Default: {@linkcode SYSTEM_CLOCK}. */
  readonly clock?: TimerClock;
}

/** One running server and our client on it. */
interface Connection {
  readonly client: Client;
  readonly transport: LineStdioClientTransport | HttpUpstreamTransport;
  /** Resolves when the transport closed (server exited, or we closed it). */
  readonly closed: Promise<void>;
  /** The server's tools, as listed when it started. */
  tools: readonly ToolDefinition[];
  names: ReadonlySet<string>;
  /** Whether the handshake completed. */
  ready: boolean;
  ended: boolean;
}

/**
 * The tools of one upstream stdio MCP server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpUpstreamSource } from "./mcp_upstream_source.ts";
 * const server = new URL("../../../examples/upstream_server.ts", import.meta.url);
 * const source = new McpUpstreamSource({
 *   name: "mcp.demo",
 *   command: Deno.execPath(),
 *   args: ["run", "--allow-env", server.pathname],
 * });
 * const result = await source.call("echo", { text: "hi" }, { signal: AbortSignal.timeout(30_000) });
 * assert.deepEqual(result.content, [{ type: "text", text: "hi" }]);
 * await source.close();
 * ```
 */
export class McpUpstreamSource implements ToolSource {
  /** The source name, `"mcp.<server>"`. */
  readonly name: string;
  readonly #options: McpUpstreamSourceOptions;
  readonly #timeoutFor: (tool: string) => number;
  readonly #startupTimeoutMs: number;
  readonly #relays: UpstreamCallRelays;
  readonly #clock: TimerClock;
  #connection: Promise<Connection> | undefined;
  /** The connection in its handshake, if one is. */
  #starting: Connection | undefined;
  #live: Connection | undefined;
  /** Who is told when the server's tools change. */
  readonly #toolListeners = new Set<() => void>();
  /** Who is told when the server's prompts or resources change. */
  readonly #catalogListeners = new Set<(kind: "prompts" | "resources") => void>();
  /** How the last connection ended, when the server went away by itself. */
  #lost: string | undefined;
  #closed = false;

  /**
   * Validates the options; the server is started by the first `list()` or `call()`.
   *
   * @param options the server command and limits
   * @throws {TypeError} when `name` does not start with `mcp.`, or not exactly one of a
   *   non-empty `command` and an `http(s)` `url` is given
   * @throws {RangeError} when `startupTimeoutMs` is not a valid time limit
   */
  constructor(options: McpUpstreamSourceOptions) {
    if (!/^mcp\.[^.]+$/.test(options.name)) {
      throw new TypeError(
        `upstream source name must look like \`mcp.<server>\`, got \`${options.name}\``,
      );
    }
    if ((options.command === undefined) === (options.url === undefined)) {
      throw new TypeError(`${options.name}: give either a command (stdio) or a url (http)`);
    }
    if (options.command === "") {
      throw new TypeError(`${options.name}: command must name the server's executable`);
    }
    if (options.url !== undefined && !/^https?:\/\//.test(options.url)) {
      throw new TypeError(
        `${options.name}: url must be http:// or https://, got \`${options.url}\``,
      );
    }
    const startupTimeoutMs = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    requireTimeoutMs(`${options.name}: startupTimeoutMs`, startupTimeoutMs);
    this.name = options.name;
    this.#options = options;
    this.#timeoutFor = options.timeoutFor ?? (() => DEFAULT_TOOL_TIMEOUT_MS);
    this.#startupTimeoutMs = startupTimeoutMs;
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#relays = new UpstreamCallRelays(options.name, {
      inquiries: options.relayInquiries ?? false,
    });
  }

  /** How long the server gets to answer its handshake and first listing, in ms. */
  get startupTimeoutMs(): number {
    return this.#startupTimeoutMs;
  }

  /** The running server's pid (its process group id), if it is running. */
  get pid(): number | undefined {
    return this.#live?.ended === false ? this.#live.transport.pid : undefined;
  }

  /**
   * The server's tools, as it listed them when it started (starting it if needed).
   *
   * @throws {SpillwayError} `tool_unavailable` when the server cannot be started
   */
  async list(): Promise<readonly ToolDefinition[]> {
    return (await this.#connect()).tools;
  }

  /**
   * Calls one tool of the server.
   *
   * @returns the server's result as sent; a timeout is the timeout result (`isError`)
   * @throws {ToolLostError} when the server exits or is closed during the call
   * @throws the signal's reason when `options.signal` aborts (the server is told to cancel)
   * @throws {SpillwayError} `tool_unavailable` when the server cannot be started, the
   *   source is closed, or the server did not list `tool`; `malformed_result` when its
   *   reply cannot be read or is not a valid `tools/call` result
   * @throws {McpError} when the server answers with a JSON-RPC error (bad arguments)
   */
  async call(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    options: ToolCallOptions,
  ): Promise<ToolResult> {
    const { signal } = options;
    signal.throwIfAborted();
    const connection = await raceAbort(this.#connect(), signal);
    if (!connection.names.has(tool)) throw unknownToolError(this.name, tool);
    using deadline = new CallDeadline(signal, this.#timeoutFor(tool), { clock: this.#clock });
    try {
      // Progress, log messages, sampling and elicitation of the call reach its caller.
      const result = await this.#relays.run(
        options.relay,
        deadline.signal,
        ({ signal, meta }) =>
          connection.client.request(
            {
              method: "tools/call",
              params: { name: tool, arguments: { ...args }, ...(meta ? { _meta: meta } : {}) },
            },
            CallToolResultSchema,
            // Our deadline, not the SDK's 60 s default, ends the request.
            { signal, timeout: MAX_TIMER_MS },
          ),
      );
      return withLegacyResult(result);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof InquiryFailedError) throw error;
      if (deadline.expired) {
        log.info(plain(
          `${this.name}: tools/call \`${tool}\` ${timedOutText(deadline.timeoutMs)}; ` +
            "the request was cancelled",
        ));
        return timedOutResult(deadline.timeoutMs);
      }
      if (await this.#wasLost(connection, error)) {
        throw new ToolLostError(`${this.#lossText(connection)} during the call`, { cause: error });
      }
      const flaw = malformedFlaw(error);
      if (flaw !== undefined) throw malformedResultError(this.name, tool, flaw);
      throw error;
    }
  }

  /** Calls `listener` whenever the server said its tools changed and they were listed again. */
  onToolsChanged(listener: () => void): () => void {
    this.#toolListeners.add(listener);
    return () => this.#toolListeners.delete(listener);
  }

  /**
   * The server's capabilities from its `initialize` answer (starting it if needed).
   *
   * @throws {SpillwayError} `tool_unavailable` when the server cannot be started
   */
  async capabilities(): Promise<ServerCapabilities> {
    return (await this.#connect()).client.getServerCapabilities() ?? {};
  }

  /**
   * The SDK client connected to the server (starting it if needed), for the
   * requests `spillway serve` passes through (prompts, resources). Pass
   * {@linkcode DEFAULT_TOOL_TIMEOUT_MS} or a signal with each request: the
   * SDK's own default is 60 s.
   *
   * @throws {SpillwayError} `tool_unavailable` when the server cannot be started
   */
  async client(): Promise<Client> {
    return (await this.#connect()).client;
  }

  /** Calls `listener` when the server says its prompts or its resources changed. */
  onCatalogChanged(listener: (kind: "prompts" | "resources") => void): () => void {
    this.#catalogListeners.add(listener);
    return () => this.#catalogListeners.delete(listener);
  }

  /** Lists the server's tools again after it said they changed, then tells the listeners. */
  async #relist(connection: Connection): Promise<void> {
    if (!connection.ready) return;
    using deadline = new CallDeadline(undefined, this.#startupTimeoutMs, { clock: this.#clock });
    try {
      connection.tools = await raceAbort(listTools(connection.client), deadline.signal);
      connection.names = new Set(connection.tools.map((tool) => tool.name));
    } catch (error) {
      log.warn(
        plain(`${this.name}: its tools changed, but listing them failed: ${reasonText(error)}`),
      );
      return;
    }
    for (const listener of this.#toolListeners) listener();
  }

  /**
   * Closes the client and stops the server (stdin EOF, then SIGTERM, then SIGKILL), at
   * once even when it is still in its handshake. Idempotent.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const pending = this.#connection;
    this.#connection = undefined;
    // Waiting for the handshake could take the whole start-up timeout: stop the
    // server under it instead, which fails the start.
    const stopping = this.#starting?.transport.close();
    const connection = await pending?.catch(() => undefined);
    await stopping;
    if (connection === undefined) return;
    await connection.client.close();
    await connection.transport.close();
  }

  /** The running connection, or a new one (after a crash, or on first use). */
  #connect(): Promise<Connection> {
    if (this.#closed) {
      return Promise.reject(
        new SpillwayError("tool_unavailable", `${this.name} is closed`, { source: this.name }),
      );
    }
    const current = this.#connection;
    if (current !== undefined) return current;
    if (this.#lost !== undefined) {
      const again = this.#options.url === undefined ? "starting it again" : "connecting again";
      this.#tell(`${this.#lost}; ${again}`);
      this.#lost = undefined;
    }
    const transport = this.#openTransport();
    const { promise: closed, resolve: markClosed } = Promise.withResolvers<void>();
    const client = new Client(CLIENT_INFO, { capabilities: this.#relays.capabilities });
    this.#relays.install(client);
    // Malformed replies and transport faults reach the client's handler.
    client.onerror = (error) => this.#report(error);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      void this.#relist(connection);
    });
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      for (const listener of this.#catalogListeners) listener("prompts");
    });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      for (const listener of this.#catalogListeners) listener("resources");
    });
    const connection: Connection = {
      client,
      transport,
      closed,
      tools: [],
      names: new Set(),
      ready: false,
      ended: false,
    };
    // Set before connect(): the SDK chains its own handler after ours, so the
    // loss is known by the time it fails the requests in flight.
    transport.onclose = () => {
      connection.ended = true;
      markClosed();
      if (this.#connection === connecting) this.#connection = undefined;
      if (connection.ready && !transport.closedByUs) this.#lost = this.#lossText(connection);
    };
    this.#starting = connection;
    const connecting = this.#start(connection);
    this.#connection = connecting;
    connecting.catch(() => {
      if (this.#connection === connecting) this.#connection = undefined;
    });
    return connecting;
  }

  /** A transport to the server: its process's stdio, or its HTTP endpoint. */
  #openTransport(): LineStdioClientTransport | HttpUpstreamTransport {
    const { command, url, headers, args, env, clearEnv, cwd, stderr, closeGraceMs } = this.#options;
    if (url !== undefined) {
      return new HttpUpstreamTransport({ url, ...(headers === undefined ? {} : { headers }) });
    }
    return new LineStdioClientTransport({
      command: command ?? "",
      ...(args === undefined ? {} : { args }),
      ...(env === undefined ? {} : { env }),
      ...(clearEnv === undefined ? {} : { clearEnv }),
      ...(cwd === undefined ? {} : { cwd }),
      ...(stderr === undefined ? {} : { stderr }),
      ...(closeGraceMs === undefined ? {} : { closeGraceMs }),
    });
  }

  /** The handshake and the first listing, under the start-up timeout. */
  async #start(connection: Connection): Promise<Connection> {
    const { client, transport } = connection;
    using deadline = new CallDeadline(undefined, this.#startupTimeoutMs, { clock: this.#clock });
    let step = "initialize";
    try {
      // Raced, not aborted: MCP forbids cancelling `initialize`. Past the
      // deadline the transport is closed under it instead.
      await raceAbort(client.connect(transport, { timeout: MAX_TIMER_MS }), deadline.signal);
      step = "tools/list";
      connection.tools = await raceAbort(listTools(client), deadline.signal);
    } catch (error) {
      // Stops a server that hangs: stdin EOF, then SIGTERM, then SIGKILL.
      await transport.close();
      const why = this.#startFailure(connection, step, deadline.expired, error);
      // Closing the source during a start is no fault of the server's.
      if (this.#closed) log.info(plain(`upstream server ${this.name}: ${why}`));
      else log.warn(plain(`cannot start upstream server ${this.name}: ${why}`));
      throw new SpillwayError(
        "tool_unavailable",
        `cannot start upstream server ${this.name}: ${why}`,
        {
          source: this.name,
          ...(this.#options.url === undefined
            ? { command: this.#options.command }
            : { url: this.#options.url }),
        },
        { cause: error },
      );
    } finally {
      if (this.#starting === connection) this.#starting = undefined;
    }
    connection.names = new Set(connection.tools.map((tool) => tool.name));
    connection.ready = true;
    this.#live = connection;
    return connection;
  }

  /** Why the start failed, in the words a person needs. */
  #startFailure(connection: Connection, step: string, expired: boolean, error: unknown): string {
    const { transport } = connection;
    if (error instanceof Deno.errors.NotFound) {
      return `command not found: \`${this.#options.command}\``;
    }
    const unreachable = transport instanceof HttpUpstreamTransport
      ? transport.explain(error)
      : undefined;
    if (unreachable !== undefined) return `${this.#options.url}: ${unreachable}`;
    const status = transport.exitStatus;
    if (status !== undefined && !transport.closedByUs) {
      return `it exited (${describeExit(status)}) during the MCP handshake`;
    }
    if (expired) return `it did not answer ${step} within ${seconds(this.#startupTimeoutMs)}`;
    if (this.#closed) return `it was closed before it answered ${step}`;
    const flaw = malformedFlaw(error);
    if (flaw !== undefined) return `it answered ${step} with ${flaw}`;
    return reasonText(error);
  }

  /** Logs what the transport or the client could not deliver. */
  #report(error: Error): void {
    if (!(error instanceof MalformedReplyError)) {
      log.warn(plain(`${this.name}: ${error.message}`));
      return;
    }
    const fate = error.request !== undefined
      ? `it answers ${error.request}, which fails`
      : error.failed.length > 0
      ? `it cannot be matched to one request, so every request waiting fails: ${
        error.failed.join(", ")
      }`
      : error.waiting === 0
      ? "no request was waiting for an answer"
      : `it names no request that waits for an answer, so it cannot be matched to one; ` +
        (error.waiting === 1
          ? "the request still waiting ends at its timeout at the latest"
          : `the ${error.waiting} requests still waiting end at their timeouts at the latest`);
    log.warn(plain(`${this.name}: the server wrote ${error.account}; ${fate}`));
  }

  /** A person should know this: through `warn` when given, else the log. */
  #tell(message: string): void {
    if (this.#options.warn === undefined) log.warn(plain(message));
    else this.#options.warn(message);
  }

  /** Whether `error` came from the server going away (rather than from the server's answer). */
  async #wasLost(connection: Connection, error: unknown): Promise<boolean> {
    if (connection.ended) return true;
    // A write into a dead server's pipe can fail before its exit is reported.
    const ioFailure = connection.transport.closing ||
      (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) ||
      error instanceof Deno.errors.BrokenPipe || error instanceof Deno.errors.ConnectionReset;
    if (!ioFailure) return false;
    await settlesWithin(connection.closed, LOSS_CONFIRMATION_MS);
    return connection.ended;
  }

  #lossText(connection: Connection): string {
    const { transport } = connection;
    if (transport instanceof HttpUpstreamTransport && transport.gone !== undefined) {
      return `upstream server ${this.name} stopped answering (${transport.gone})`;
    }
    const status = connection.transport.exitStatus;
    if (connection.transport.closedByUs || status === undefined) {
      return `upstream server ${this.name} was closed`;
    }
    return `upstream server ${this.name} exited (${describeExit(status)})`;
  }
}

/** Every page of the server's tools. */
async function listTools(client: Client): Promise<ToolDefinition[]> {
  const tools: ToolDefinition[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, {
      timeout: MAX_TIMER_MS,
    });
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

/**
 * A result of the 2024-10-07 protocol (`toolResult` instead of `content`)
 * as a text block, so that it is not dropped as an empty result.
 */
function withLegacyResult(result: ToolResult & { readonly toolResult?: unknown }): ToolResult {
  if (result.content.length > 0 || !("toolResult" in result)) return result;
  const { toolResult: legacy, ...rest } = result;
  return { ...rest, content: [{ type: "text", text: JSON.stringify(legacy) ?? "" }] };
}

/** What is wrong with a reply the client refused, or `undefined` for other errors. */
function malformedFlaw(error: unknown): string | undefined {
  if (error instanceof McpError) {
    const data: unknown = error.data;
    if (typeof data !== "object" || data === null) return undefined;
    const flaw: unknown = (data as Record<string, unknown>)[MALFORMED_REPLY_DATA_KEY];
    return typeof flaw === "string" ? flaw : undefined;
  }
  // The SDK rejects a result that fails its schema with the zod error itself.
  if (typeof error !== "object" || error === null || !("issues" in error)) return undefined;
  const { issues } = error;
  if (!Array.isArray(issues)) return undefined;
  return describeIssues(issues.map((issue: unknown) => {
    const { path, message } = (issue ?? {}) as { path?: unknown; message?: unknown };
    return { path: Array.isArray(path) ? path : [], message: String(message) };
  }));
}

function describeExit(status: Deno.CommandStatus): string {
  return status.signal === null ? `code ${status.code}` : `signal ${status.signal}`;
}

/** `30000` → `30 s`, `500` → `0.5 s`: a limit as configured, in seconds. */
function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

/** A log message taken literally: logtape reads `{…}` in messages as placeholders. */
function plain(text: string): string {
  return text.replaceAll("{", "{{").replaceAll("}", "}}");
}
