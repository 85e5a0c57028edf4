/**
 * The interface every tool source behind the execution service implements:
 * builtin TypeScript functions, local argv commands and upstream MCP servers.
 * The service lists a source's tools once at start and routes `tools/call`
 * requests to it; the source only runs tools, it never parks or caps.
 *
 * @module
 */

import type { SpilledOutput } from "../review/full_output_reference.ts";
import type { ResponseWindow } from "../review/tool_call_response.ts";
import type { OutputSink } from "./output_sink.ts";
import type { ToolCallRelay } from "./tool_call_relay.ts";

/** One tool as a source advertises it. */
export interface ToolDefinition {
  /** The tool's name inside its source (before any rename by the config). */
  readonly name: string;
  /** A human/assistant-readable description. */
  readonly description: string;
  /** The JSON Schema object of the tool's arguments (`{ type: "object", … }`). */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** A display name for people (MCP `title`), when the source gives one. */
  readonly title?: string | undefined;
  /** The JSON Schema object of the tool's `structuredContent`, when it declares one. */
  readonly outputSchema?: Readonly<Record<string, unknown>> | undefined;
  /** MCP tool annotations (`readOnlyHint`, `destructiveHint`, …), passed on as given. */
  readonly annotations?: Readonly<Record<string, unknown>> | undefined;
  /** The tool's own MCP `_meta`, passed on as given. */
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * What a tool returned, in MCP terms. A tool failure is a result with
 * `isError: true`, never an exception.
 */
export interface ToolResult {
  /** MCP content blocks (`{ type: "text", text }`, `{ type: "image", … }`, …). */
  readonly content: readonly Readonly<Record<string, unknown>>[];
  /** The MCP result's `structuredContent`, when the tool produced one. */
  readonly structuredContent?: Readonly<Record<string, unknown>> | undefined;
  /** Whether the tool reports a failure. Defaults to `false`. */
  readonly isError?: boolean | undefined;
  /**
   * For a text too large to hold, written to the `output` sink of the call:
   * the single text block is its head, and this the rest of what a cut can
   * keep. Never part of what a caller receives.
   */
  readonly window?: ResponseWindow | undefined;
  /** The whole text's blob, when the sink stored it (`spill = true`). */
  readonly spilled?: SpilledOutput | undefined;
}

/** Options of {@linkcode ToolSource.call}. */
export interface ToolCallOptions {
  /**
   * Aborts the call. When it aborts, `call()` rejects promptly with
   * `signal.reason` (usually an `AbortError` `DOMException`).
   */
  readonly signal: AbortSignal;
  /**
   * The caller's side of the call (progress, logs, sampling, elicitation),
   * for sources that can pass those on. Default: none.
   */
  readonly relay?: ToolCallRelay | undefined;
  /**
   * Whom the call is for: a `spillway serve` client's name. Sources that
   * keep state per caller keep it per principal (an upstream server's
   * connection; which stored outputs `read_tool_output` may read). Default:
   * none (`spillway query`, the runtime: spillway's own).
   */
  readonly principal?: string | undefined;
  /**
   * Where a text output too large to hold goes, and how much of it to hold
   * (sources that stream their output use it; others return text as ever).
   * Default: none, everything is held.
   */
  readonly output?: OutputSink | undefined;
}

/** A set of tools the execution service can run. */
export interface ToolSource {
  /** The source's name as the config spells it: `"builtin"`, `"local"`, `"mcp.github"`. */
  readonly name: string;
  /** Lists the source's tools. */
  list(): Promise<readonly ToolDefinition[]>;
  /**
   * Runs one tool. Every source answers alike (the tool source contract in
   * `src/testing/tool_source_contract.ts` checks it): a failure is a result,
   * a call past the tool's time limit is the timeout result
   * (`timedOutResult`), and the faults below are thrown with messages that
   * name the source.
   *
   * @param tool the tool's name inside this source
   * @param args the JSON arguments object
   * @returns the tool's result; a tool failure, and a timeout, are `isError: true`
   * @throws {SpillwayError} `tool_unavailable` for a tool the source does not
   *   have (`unknownToolError`); `malformed_result` for a result it cannot read
   *   (the service also checks every result it gets)
   * @throws {ToolLostError} when the source died mid-call (process exit, upstream crash)
   * @throws the signal's reason, at once, when `options.signal` aborts
   */
  call(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    options: ToolCallOptions,
  ): Promise<ToolResult>;
  /** Releases the source's processes and connections. Idempotent. */
  close(): Promise<void>;
  /**
   * Releases what the source keeps for `principal` (an upstream server's
   * connection for that client, and its process): the gateway calls it when
   * the client's last session ended; a later call of that principal starts
   * afresh. Optional: a source that keeps nothing per principal leaves it out.
   */
  release?(principal: string): Promise<void>;
  /**
   * Calls `listener` whenever the source's tools changed (an upstream
   * server's `notifications/tools/list_changed`); `list()` then returns the
   * new ones. Returns the unsubscribe function. Optional: a source whose
   * tools never change leaves it out.
   */
  onToolsChanged?(listener: () => void): () => void;
}

/**
 * Thrown by {@linkcode ToolSource.call} when the source died mid-call: a
 * local process exited without a result, an upstream MCP server crashed or
 * closed its transport. The message says why; the service turns it into a
 * `lost` outcome.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolLostError } from "./tool_source.ts";
 * const e = new ToolLostError("mcp.github exited with code 1");
 * assert.equal(e.name, "ToolLostError");
 * assert.ok(e instanceof Error);
 * ```
 */
export class ToolLostError extends Error {
  /**
   * Creates the error.
   *
   * @param message why the call was lost
   * @param options standard error options (`cause`)
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ToolLostError";
  }
}
