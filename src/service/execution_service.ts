/**
 * The in-process MCP execution service (docs/architecture.md). It exports the tools of
 * its sources over MCP, runs each `tools/call`, and parks the outcome on the
 * call's barrier (Record or Review) until the Host acknowledges it; only then
 * does the caller get a result, and it is the one the Host decided: the
 * tool's own (`deliver`), the recorded replacement (`replace`), or an error
 * (`fail`). The service never decides a cap.
 *
 * It is a composition of three parts: the tool table (`tool_table.ts`:
 * listing, renames, relisting), the call pipeline (`call_pipeline.ts`: one
 * `tools/call` from arrival to its park) and the parking lot
 * (`parking_lot.ts`: every call in its state, from arrival to delivery),
 * served to each connection by its own plain SDK `Server`
 * (`service_server.ts`: the SDK binds a server to one transport).
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import type { BlobOwners } from "../blobs/blob_owners.ts";
import type { BlobStore } from "../blobs/blob_store.ts";
import { CallPipeline, type CallToolOptions } from "./call_pipeline.ts";
import type { CallCancellation } from "./call_cancellation.ts";
import type { Acknowledgement } from "./executor.ts";
import type { ParkedCall } from "./parked_call.ts";
import type { ParkWaiter } from "./_park_waiters.ts";
import { ParkingLot } from "./parking_lot.ts";
import type { CallToolRequest, CallToolResult, Server, Transport } from "./sdk.ts";
import { createServiceServer } from "./service_server.ts";
import { ToolTable } from "./tool_table.ts";
import type { ExecutionServiceOptions } from "./execution_service_options.ts";
import type { ToolDefinition } from "./tool_source.ts";

export { CALL_ID_META_KEY } from "./call_pipeline.ts";
export type { CallToolOptions, OutputOptions, SpillOptions } from "./call_pipeline.ts";
export { DELIVERY_SLICE } from "./_delivery_slices.ts";
export type { ParkWaiter } from "./_park_waiters.ts";
export type { ToolRoute } from "./tool_routes.ts";
export type { ExecutionServiceOptions } from "./execution_service_options.ts";

const log = getLogger(["spillway", "service"]);

/**
 * Parks every executed call on its barrier until the Host acknowledges it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExecutionService } from "./execution_service.ts";
 * import { BuiltinToolSource } from "./builtin/builtin_tool_source.ts";
 * const service = new ExecutionService({
 *   sources: [new BuiltinToolSource({ cwd: "." })],
 *   barrierFor: () => "record",
 * });
 * await service.start();
 * assert.ok(service.has("fs_read_file"));
 * await service.close();
 * ```
 */
export class ExecutionService {
  readonly #options: ExecutionServiceOptions;
  readonly #table: ToolTable;
  readonly #lot = new ParkingLot(log);
  readonly #pipeline: CallPipeline;
  readonly #servers = new Set<Server>();
  #state: "new" | "starting" | "started" | "closed" = "new";
  #closing: Promise<void> | undefined;

  /**
   * Creates a service; nothing runs until {@linkcode start}.
   *
   * @param options sources, renames, barrier policy; see {@linkcode ExecutionServiceOptions}
   */
  constructor(options: ExecutionServiceOptions) {
    this.#options = options;
    this.#table = new ToolTable(options.sources, options.toolNames ?? {}, log);
    this.#pipeline = new CallPipeline(this.#table, this.#lot, {
      barrierFor: options.barrierFor,
      spill: options.spill,
      output: options.output,
      payloads: options.payloads,
      clock: options.clock ?? Date,
    }, log);
  }

  /**
   * Lists every source's tools and builds the exported tool table.
   *
   * @throws {TypeError} when called twice, on duplicate or unknown names (see `toolNames`)
   * @throws {SpillwayError} `config_invalid` when a `toolNames` entry names a tool its
   *   source does not list
   * @throws whatever a source's `list()` throws
   */
  async start(): Promise<void> {
    if (this.#state !== "new") throw new TypeError("ExecutionService.start() was already called");
    this.#state = "starting";
    await this.#table.list();
    if (this.#state === "starting") this.#state = "started";
  }

  /**
   * Calls `listener` whenever a source's tools changed and the exported
   * table was rebuilt ({@linkcode list} returns the new tools). Returns the
   * unsubscribe function.
   */
  onToolsChanged(listener: () => void): () => void {
    return this.#table.onChanged(listener);
  }

  /** Whether a tool of that exported name exists. */
  has(tool: string): boolean {
    return this.#table.route(tool) !== undefined;
  }

  /**
   * The blob store spilled outputs go to (`spill = true`), or `undefined`
   * when no tool spills. Servers of this service's tools serve its blobs as
   * resources.
   */
  get blobStore(): BlobStore | undefined {
    return this.#options.spill?.store;
  }

  /** Who produced which spilled output, when calls record it (see {@linkcode SpillOptions}). */
  get blobOwners(): BlobOwners | undefined {
    return this.#options.spill?.owners;
  }

  /** The exported tools (after renames), as callers see them. */
  list(): readonly ToolDefinition[] {
    return this.#table.definitions();
  }

  /** The calls currently parked, waiting for their acknowledgement. */
  parked(): readonly ParkedCall[] {
    return this.#lot.parked();
  }

  /**
   * Where call `callId` is in its life (the `parkedCall` machine):
   * `running`, `parked` or `acknowledged`; `undefined` once its caller has
   * its result, or before it arrived.
   */
  callState(callId: string): "running" | "parked" | "acknowledged" | undefined {
    return this.#lot.stateOf(callId);
  }

  /**
   * A new MCP server for one connection, serving this service's tools. The
   * service closes it in {@linkcode close}.
   *
   * @throws {TypeError} before {@linkcode start} or after {@linkcode close}
   */
  createServer(): Server {
    if (this.#state !== "started") {
      throw new TypeError(`cannot serve a ${this.#state} ExecutionService: start() it first`);
    }
    const server = createServiceServer({
      serverInfo: this.#options.serverInfo ?? { name: "spillway", version: "0.1.0" },
      table: this.#table,
      pipeline: this.#pipeline,
      lot: this.#lot,
      blobs: this.blobStore,
    });
    const onclose = server.onclose;
    server.onclose = () => {
      onclose?.();
      this.#servers.delete(server);
    };
    this.#servers.add(server);
    return server;
  }

  /** Serves this service's tools on `transport` (a new server per connection). */
  async connect(transport: Transport): Promise<Server> {
    const server = this.createServer();
    await server.connect(transport);
    return server;
  }

  /** Calls `listener` with every call as it parks. Returns the unsubscribe function. */
  onParked(listener: (call: ParkedCall) => void): () => void {
    return this.#lot.onParked(listener);
  }

  /**
   * Resolves when call `callId` is parked (immediately if it already is).
   * May be called before the call reaches the service. Rejects with a
   * `TypeError` if {@linkcode forget} or {@linkcode close} gives up on it.
   */
  waitParked(callId: string): Promise<ParkedCall> {
    const waiter = Promise.withResolvers<ParkedCall>();
    this.#lot.whenParked(callId, waiter);
    return waiter.promise;
  }

  /**
   * {@linkcode waitParked} with callbacks instead of a promise: `waiter.resolve`
   * is called when call `callId` parks (at once if it already has),
   * `waiter.reject` when the service gives up on it.
   */
  whenParked(callId: string, waiter: ParkWaiter): void {
    this.#lot.whenParked(callId, waiter);
  }

  /**
   * Gives up on a call that never reached the service (the caller's request
   * failed before it arrived): drops its pending cancellation and rejects its
   * {@linkcode waitParked} promises.
   */
  forget(callId: string): void {
    this.#lot.forget(callId);
  }

  /**
   * Cancels call `callId`: its source call is aborted and the call parks as
   * `cancelled` (the Host then records and releases it like any other). If
   * the call has not reached the service yet, it is cancelled on arrival.
   *
   * @returns `false` when the call is already parked (nothing to cancel)
   */
  cancel(callId: string, reason: string | CallCancellation = "cancelled"): boolean {
    return this.#lot.cancel(callId, reason);
  }

  /**
   * Releases what the sources keep for `principal` (a `spillway serve`
   * client whose last session ended): its upstream servers' connections,
   * and their processes, are closed. Its next call starts them again.
   */
  async release(principal: string): Promise<void> {
    await Promise.allSettled(this.#options.sources.map((source) => source.release?.(principal)));
  }

  /**
   * Cancels every running call of client session `session` (`spillway
   * serve`); a {@linkcode CallCancellation} says why, for the recorded
   * responses.
   */
  cancelSession(session: string, reason: string | CallCancellation): void {
    this.#lot.cancelSession(session, reason);
  }

  /**
   * Releases parked call `callId` with the Host's decision: `deliver` hands
   * over the tool's own result (non-text blocks and `structuredContent`
   * included), `replace` exactly `ack.content` (non-text dropped), `fail` an
   * error with `ack.message`. The decision is taken now; the caller gets its
   * result once the calls acknowledged before it got theirs, at most
   * `DELIVERY_SLICE` per macrotask.
   *
   * @throws {TypeError} when no call of that id is parked
   */
  acknowledge(callId: string, ack: Acknowledgement): void {
    this.#lot.acknowledge(callId, ack);
  }

  /**
   * Closes the service: cancels running calls, fails parked ones with
   * "runtime closed" (no caller hangs), closes the sources, then the servers.
   * Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#state = "closed";
    this.#lot.close();
    this.#table.close();
    await Promise.allSettled(this.#options.sources.map((source) => source.close()));
    await this.#lot.drained();
    // The SDK sends a handler's response a few promise hops after the handler
    // settles; one macrotask turn lets those "runtime closed" replies out
    // before the transports close under them.
    await new Promise((resolve) => setTimeout(resolve, 0));
    await Promise.allSettled([...this.#servers].map((server) => server.close()));
  }

  /**
   * Runs one `tools/call` and resolves with what the caller receives once the
   * Host acknowledged the parked call. The servers of {@linkcode createServer}
   * call this; `spillway serve` calls it directly for its clients, with the
   * client session and the relay of the client's side of the call.
   */
  callTool(request: CallToolRequest, options: CallToolOptions): Promise<CallToolResult> {
    return this.#pipeline.call(request, options);
  }
}
