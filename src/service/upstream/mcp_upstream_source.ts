/**
 * An upstream MCP server as a tool source (`providers.mcp.<server>`):
 * spillway is its MCP client, over the linear-time
 * {@linkcode LineStdioClientTransport} (`type = "stdio"`: spillway runs the
 * server) or over Streamable HTTP ({@linkcode HttpUpstreamTransport},
 * `type = "http"`: the server runs elsewhere). Results pass through as the server
 * sent them (content blocks, `structuredContent`, `isError`), uncapped: the
 * Host caps them at phase end like any other result.
 *
 * This file is the tool-source face; the connection's life (start, loss,
 * restart, close) is the {@linkcode upstreamConnectionMachine}'s, run by
 * {@linkcode UpstreamConnection}. A call for a principal (a `spillway
 * serve` client) runs on that principal's own connection, a server process
 * of its own ({@linkcode UpstreamConnections}, which also answers the
 * gateway's catalog).
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

import type { InspectionEvent } from "xstate";
import { DEFAULT_STARTUP_TIMEOUT_SECONDS } from "../../config/builtin_defaults.ts";
import { CallDeadline, type CallDeadlineOptions } from "../call_deadline.ts";
import { raceAbort } from "../race_abort.ts";
import { LOG_LEVEL_META_KEY, type LoggingLevel } from "../sdk.ts";
import { askable, lackingCapabilities } from "./call_capabilities.ts";
import { type ObjectToolResult, toolResultOf } from "../tool_result_of.ts";
import { SYSTEM_CLOCK, type TimerClock } from "../timer_clock.ts";
import {
  type ToolCallOptions,
  type ToolDefinition,
  ToolLostError,
  type ToolResult,
  type ToolSource,
} from "../tool_source.ts";
import { malformedResultError, unknownToolError } from "../tool_source_faults.ts";
import {
  DEFAULT_TOOL_TIMEOUT_MS,
  MAX_TIMER_MS,
  requireTimeoutMs,
  timedOutResult,
  timedOutText,
} from "../tool_timeout.ts";
import type { CatalogUpstream } from "./catalog_upstream.ts";
import type { LineStdioClientTransportOptions } from "./line_stdio_client_transport.ts";
import { malformedFlaw } from "./malformed_reply_error.ts";
import { InquiryFailedError } from "./upstream_call_relays.ts";
import { inputRequiredText, isInputRequired } from "./input_required_text.ts";
import { ProtocolVerdict, type UpstreamProtocol } from "./upstream_protocol.ts";
import { UpstreamConnection } from "./upstream_connection.ts";
import { UpstreamConnections } from "./upstream_connections.ts";
import type { RestartPolicy } from "./restart_policy.ts";
import { plain, upstreamLog } from "./_upstream_log.ts";
import { upstreamServerOf } from "./_upstream_server_of.ts";

/**
 * How long a started server gets to answer `initialize` (and then
 * `tools/list`) unless `providers.mcp.<name>.startup_timeout` says
 * otherwise: 30 s.
 */
export const DEFAULT_STARTUP_TIMEOUT_MS: number = DEFAULT_STARTUP_TIMEOUT_SECONDS * 1000;

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
  /**
   * When a server that is down is started again: on the next call (the
   * default, `{ when: "demand" }`), or by itself after a back-off
   * (`{ when: "background" }`; see {@linkcode RestartPolicy}).
   */
  readonly restart?: RestartPolicy;
  /** The clock the time limits and delays run on. Default: {@linkcode SYSTEM_CLOCK}. */
  readonly clock?: TimerClock;
  /**
   * The MCP revision spoken to the server (`providers.mcp.<name>.protocol`):
   * `"auto"` (the default: `server/discover`, else `initialize`; the verdict
   * is kept for the server's later connections), `"2025-11-25"` or
   * `"2026-07-28"` (no fallback).
   */
  readonly protocol?: UpstreamProtocol;
  /** Receives each connection actor's XState inspection events (`serve --inspect`). Default: none. */
  readonly inspect?: (event: InspectionEvent) => void;
}

/**
 * The log level a call asks a 2026-07-28 server for when its caller takes
 * log messages: every level, as a 2025 server sends them before any
 * `logging/setLevel`; the caller's relay keeps the ones its client wants.
 */
export const RELAYED_LOG_LEVEL: LoggingLevel = "debug";

/**
 * The tools of one upstream MCP server.
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
  readonly #timeoutFor: (tool: string) => number;
  readonly #deadline: CallDeadlineOptions;
  readonly #connections: UpstreamConnections;
  readonly #startupTimeoutMs: number;

  /**
   * Validates the options; the server is started by the first `list()` or `call()`.
   *
   * @param options the server command and limits
   * @throws {TypeError} when `name` does not start with `mcp.`, or not exactly one of a
   *   non-empty `command` and an `http(s)` `url` is given
   * @throws {RangeError} when `startupTimeoutMs` is not a valid time limit
   */
  constructor(options: McpUpstreamSourceOptions) {
    const startupTimeoutMs = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    const server = upstreamServerOf(options);
    requireTimeoutMs(`${options.name}: startupTimeoutMs`, startupTimeoutMs);
    this.name = options.name;
    this.#timeoutFor = options.timeoutFor ?? (() => DEFAULT_TOOL_TIMEOUT_MS);
    const clock = options.clock ?? SYSTEM_CLOCK;
    this.#deadline = { clock };
    const warn = options.warn ?? ((message: string) => upstreamLog.warn(plain(message)));
    this.#startupTimeoutMs = startupTimeoutMs;
    // One verdict for every connection to the server: it is probed once.
    const verdict = new ProtocolVerdict();
    this.#connections = new UpstreamConnections(options.name, () =>
      new UpstreamConnection({
        name: options.name,
        server,
        startupTimeoutMs,
        warn,
        clock,
        verdict,
        protocol: options.protocol ?? "auto",
        ...(options.restart === undefined ? {} : { restart: options.restart }),
        ...(options.relayInquiries === undefined ? {} : { relayInquiries: options.relayInquiries }),
        ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
      }));
  }

  /** How long the server gets to answer its handshake and first listing, in ms. */
  get startupTimeoutMs(): number {
    return this.#startupTimeoutMs;
  }

  /** The running server's pid (its process group id), on spillway's own connection. */
  get pid(): number | undefined {
    return this.#connections.pidOf();
  }

  /**
   * The revision spillway speaks with the server on `principal`'s connection
   * (spillway's own without one), while it answers: `"2026-07-28"`,
   * `"2025-11-25"`, or what an older server chose.
   */
  protocolVersionOf(principal?: string): string | undefined {
    return this.#connections.protocolOf(principal);
  }

  /** The pid of `principal`'s own server (its process group id), while it runs. */
  pidOf(principal: string): number | undefined {
    return this.#connections.pidOf(principal);
  }

  /** The server as the gateway's catalog of prompts and resources reaches it. */
  get catalog(): CatalogUpstream {
    return this.#connections;
  }

  /**
   * The server's tools, as it last listed them (starting it if needed).
   *
   * @throws {SpillwayError} `tool_unavailable` when the server cannot be started
   */
  list(): Promise<readonly ToolDefinition[]> {
    return this.#connections.tools();
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
   * @throws {ProtocolError} when the server answers with a JSON-RPC error (bad arguments)
   */
  async call(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    options: ToolCallOptions,
  ): Promise<ToolResult> {
    const { signal } = options;
    signal.throwIfAborted();
    // Each principal (a gateway's client) has its own connection: its own server process.
    const { connection, live } = await raceAbort(
      this.#connections.ready(options.principal),
      signal,
    );
    const { link, names } = live;
    if (!names.has(tool)) throw unknownToolError(this.name, tool);
    using deadline = new CallDeadline(signal, this.#timeoutFor(tool), this.#deadline);
    try {
      // Progress, log messages, sampling and elicitation of the call reach its caller.
      const result = await connection.relays.run(
        options.relay,
        deadline.signal,
        ({ signal, meta }) => {
          // A 2026-07-28 server sends log messages only to a request that asks for them.
          const logs = link.modern && options.relay?.log !== undefined
            ? { [LOG_LEVEL_META_KEY]: options.relay.logLevel ?? RELAYED_LOG_LEVEL }
            : undefined;
          // It asks only for what the caller's client can answer.
          const asks = link.modern
            ? askable(connection.relays.capabilities, options.relay?.capabilities)
            : undefined;
          const _meta = meta === undefined && logs === undefined && asks === undefined
            ? undefined
            : { ...meta, ...logs, ...asks };
          return link.client.request(
            {
              method: "tools/call",
              params: { name: tool, arguments: { ...args }, ...(_meta ? { _meta } : {}) },
            },
            // Our deadline, not the SDK's 60 s default, ends the request.
            { signal, timeout: MAX_TIMER_MS },
          );
        },
      );
      return withLegacyResult(toolResultOf(result));
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof InquiryFailedError) throw error;
      // The server wants of the caller's client what it did not declare: the caller hears of it.
      const lacking = lackingCapabilities(error);
      if (lacking !== undefined) options.relay?.lacking?.(lacking);
      if (isInputRequired(error)) {
        const text = inputRequiredText(this.name, `tools/call \`${tool}\``);
        upstreamLog.info(plain(text));
        return { content: [{ type: "text", text }], isError: true };
      }
      if (deadline.expired) {
        upstreamLog.info(plain(
          `${this.name}: tools/call \`${tool}\` ${timedOutText(deadline.timeoutMs)}; ` +
            "the request was cancelled",
        ));
        return timedOutResult(deadline.timeoutMs);
      }
      if (await link.wasLost(error)) {
        throw new ToolLostError(`${link.lossText()} during the call`, { cause: error });
      }
      const flaw = malformedFlaw(error);
      if (flaw !== undefined) throw malformedResultError(this.name, tool, flaw);
      throw error;
    }
  }

  /**
   * Calls `listener` whenever one of the server's connections said its tools
   * changed and they were listed again.
   */
  onToolsChanged(listener: () => void): () => void {
    return this.#connections.onToolsChanged(listener);
  }

  /**
   * Closes `principal`'s connection and stops its server; its next call
   * starts a new one.
   */
  release(principal: string): Promise<void> {
    return this.#connections.release(principal);
  }

  /**
   * Closes every client and stops every server of this source (stdin EOF,
   * then SIGTERM, then SIGKILL), at once even when one is still in its
   * handshake. Idempotent.
   */
  close(): Promise<void> {
    return this.#connections.close();
  }
}

/**
 * A result of the 2024-10-07 protocol (`toolResult` instead of `content`)
 * as a text block, so that it is not dropped as an empty result.
 */
function withLegacyResult(result: ObjectToolResult): ObjectToolResult {
  if (result.content.length > 0 || !("toolResult" in result)) return result;
  const { toolResult: legacy, ...rest } = result;
  return { ...rest, content: [{ type: "text", text: JSON.stringify(legacy) ?? "" }] };
}
