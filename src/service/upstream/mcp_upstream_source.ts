/**
 * An upstream MCP server as a tool source (`providers.mcp.<server>` with
 * `type = "stdio"`): spillway is its MCP client, over the linear-time
 * {@linkcode LineStdioClientTransport}. Results pass through as the server
 * sent them (content blocks, `structuredContent`, `isError`), uncapped: the
 * Host caps them at phase end like any other result.
 *
 * The server is started on the first `list()` or `call()`. If it exits, the
 * calls in flight are lost ({@linkcode ToolLostError}) and the next call
 * starts it again.
 *
 * @module
 */

import { SpillwayError } from "../../errors/spillway_error.ts";
import { raceAbort } from "../race_abort.ts";
import { settlesWithin } from "../subprocess/settles_within.ts";
import { Client, ErrorCode, McpError } from "../sdk.ts";
import {
  type ToolCallOptions,
  type ToolDefinition,
  ToolLostError,
  type ToolResult,
  type ToolSource,
} from "../tool_source.ts";
import { describeInvalidResult, toToolResult } from "./_call_tool_result.ts";
import {
  LineStdioClientTransport,
  type LineStdioClientTransportOptions,
} from "./line_stdio_client_transport.ts";

/**
 * How long one upstream call may run: 1 hour. The SDK's 60 s default would
 * cut off slow tools (a full test suite); the runtime's own cancellation
 * (Ctrl-C, the caller's abort signal) is the usual way a call ends early.
 */
export const DEFAULT_UPSTREAM_CALL_TIMEOUT_MS = 60 * 60 * 1000;

/** How spillway introduces itself to upstream servers. */
const CLIENT_INFO = { name: "spillway", version: "0.1.0" };

/**
 * How long a failed request may wait for the transport to report that the
 * server went away, so that a write into a dead pipe is reported as a lost
 * call rather than an I/O error.
 */
const LOSS_CONFIRMATION_MS = 1_000;

/** Options of {@linkcode McpUpstreamSource}. */
export interface McpUpstreamSourceOptions {
  /** The source name, `"mcp.<server>"`. */
  readonly name: string;
  /** The server's executable. */
  readonly command: string;
  /** Its arguments. Default: none. */
  readonly args?: readonly string[];
  /** Variables added to the inherited environment. Default: none. */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory. Default: the current directory. */
  readonly cwd?: string;
  /** Where the server's stderr goes. Default: `"inherit"`. */
  readonly stderr?: LineStdioClientTransportOptions["stderr"];
  /** Per-call deadline. Default: {@linkcode DEFAULT_UPSTREAM_CALL_TIMEOUT_MS}. */
  readonly callTimeoutMs?: number;
  /** Shutdown grace of the transport. Default: `STDIO_CLOSE_GRACE_MS`. */
  readonly closeGraceMs?: number;
}

/** One running server and our client on it. */
interface Connection {
  readonly client: Client;
  readonly transport: LineStdioClientTransport;
  /** Resolves when the transport closed (server exited, or we closed it). */
  readonly closed: Promise<void>;
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
  readonly #timeoutMs: number;
  #connection: Promise<Connection> | undefined;
  #live: Connection | undefined;
  #closed = false;

  /**
   * Validates the options; the server is started by the first `list()` or `call()`.
   *
   * @param options the server command and limits
   * @throws {TypeError} when `name` does not start with `mcp.` or `command` is empty
   * @throws {RangeError} when `callTimeoutMs` is not a positive integer
   */
  constructor(options: McpUpstreamSourceOptions) {
    if (!/^mcp\.[^.]+$/.test(options.name)) {
      throw new TypeError(
        `upstream source name must look like \`mcp.<server>\`, got \`${options.name}\``,
      );
    }
    if (options.command === "") {
      throw new TypeError(`${options.name}: command must name the server's executable`);
    }
    const timeoutMs = options.callTimeoutMs ?? DEFAULT_UPSTREAM_CALL_TIMEOUT_MS;
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) {
      throw new RangeError(
        `${options.name}: callTimeoutMs must be a positive integer, got ${timeoutMs}`,
      );
    }
    this.name = options.name;
    this.#options = options;
    this.#timeoutMs = timeoutMs;
  }

  /** The running server's pid (its process group id), if it is running. */
  get pid(): number | undefined {
    return this.#live?.ended === false ? this.#live.transport.pid : undefined;
  }

  /**
   * Lists the server's tools, all pages, starting the server if needed.
   *
   * @throws {SpillwayError} `tool_unavailable` when the server cannot be started or dies while listing
   */
  async list(): Promise<readonly ToolDefinition[]> {
    const connection = await this.#connect();
    const tools: ToolDefinition[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    try {
      do {
        const page = await connection.client.listTools(
          cursor === undefined ? undefined : { cursor },
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
          throw new SpillwayError(
            "tool_unavailable",
            `${this.name} repeated the tools/list cursor \`${cursor}\``,
          );
        }
        if (cursor !== undefined) seen.add(cursor);
      } while (cursor !== undefined);
    } catch (error) {
      if (await this.#wasLost(connection, error)) {
        throw new SpillwayError(
          "tool_unavailable",
          `${this.#lossText(connection)} while listing its tools`,
          {
            source: this.name,
          },
          { cause: error },
        );
      }
      throw error;
    }
    return tools;
  }

  /**
   * Calls one tool of the server.
   *
   * @returns the server's result as sent; a timeout is an `isError` result
   * @throws {ToolLostError} when the server exits or is closed during the call
   * @throws the signal's reason when `options.signal` aborts (the server is told to cancel)
   * @throws {SpillwayError} `tool_unavailable` when the server cannot be started or the source is closed
   * @throws {McpError} when the server answers with a JSON-RPC error (unknown tool, bad arguments)
   * @throws {TypeError} when the server's result is not a valid `tools/call` result
   */
  async call(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    options: ToolCallOptions,
  ): Promise<ToolResult> {
    const { signal } = options;
    signal.throwIfAborted();
    const connection = await raceAbort(this.#connect(), signal);
    try {
      const result = await connection.client.callTool(
        { name: tool, arguments: { ...args } },
        undefined,
        { signal, timeout: this.#timeoutMs },
      );
      return toToolResult(result);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (await this.#wasLost(connection, error)) {
        throw new ToolLostError(`${this.#lossText(connection)} during the call`, { cause: error });
      }
      const malformed = describeInvalidResult(error);
      if (malformed !== undefined) {
        throw new TypeError(`${this.name} sent a malformed result for \`${tool}\`: ${malformed}`, {
          cause: error,
        });
      }
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        return {
          content: [{
            type: "text",
            text: `timed out after ${Number((this.#timeoutMs / 1000).toFixed(3))}s`,
          }],
          isError: true,
        };
      }
      throw error;
    }
  }

  /** Closes the client and stops the server (stdin EOF, then SIGTERM, then SIGKILL). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const pending = this.#connection;
    this.#connection = undefined;
    const connection = await pending?.catch(() => undefined);
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
    const { command, args, env, cwd, stderr, closeGraceMs } = this.#options;
    const transport = new LineStdioClientTransport({
      command,
      ...(args === undefined ? {} : { args }),
      ...(env === undefined ? {} : { env }),
      ...(cwd === undefined ? {} : { cwd }),
      ...(stderr === undefined ? {} : { stderr }),
      ...(closeGraceMs === undefined ? {} : { closeGraceMs }),
    });
    const { promise: closed, resolve: markClosed } = Promise.withResolvers<void>();
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const connection: Connection = { client, transport, closed, ended: false };
    // Set before connect(): the SDK chains its own handler after ours, so the
    // loss is known by the time it fails the requests in flight.
    transport.onclose = () => {
      connection.ended = true;
      markClosed();
      if (this.#connection === connecting) this.#connection = undefined;
    };
    const connecting = (async () => {
      try {
        await client.connect(transport);
      } catch (error) {
        await transport.close();
        const why = error instanceof Deno.errors.NotFound
          ? `command not found: \`${command}\``
          : transport.exitStatus === undefined
          ? String(error instanceof Error ? error.message : error)
          : `it exited (${describeExit(transport.exitStatus)}) during the MCP handshake`;
        throw new SpillwayError(
          "tool_unavailable",
          `cannot start upstream server ${this.name}: ${why}`,
          {
            source: this.name,
            command,
          },
          { cause: error },
        );
      }
      this.#live = connection;
      return connection;
    })();
    this.#connection = connecting;
    connecting.catch(() => {
      if (this.#connection === connecting) this.#connection = undefined;
    });
    return connecting;
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
    const status = connection.transport.exitStatus;
    if (connection.transport.closedByUs || status === undefined) {
      return `upstream server ${this.name} was closed`;
    }
    return `upstream server ${this.name} exited (${describeExit(status)})`;
  }
}

function describeExit(status: Deno.CommandStatus): string {
  return status.signal === null ? `code ${status.code}` : `signal ${status.signal}`;
}
