/**
 * The in-process MCP execution service (docs/architecture.md). It exports the tools of
 * its sources over MCP, runs each `tools/call`, and parks the outcome on the
 * call's barrier (Record or Review) until the Host acknowledges it; only then
 * does the caller get a result, and it is the one the Host decided: the
 * tool's own (`deliver`), the recorded replacement (`replace`), or an error
 * (`fail`). The service never decides a cap.
 *
 * One McpServer serves one connection (the SDK binds a server to one
 * transport), so the service makes a server per connection: the runtime's
 * executor, each `spillway serve` client. All share the tool table and the
 * parked calls.
 *
 * @module
 */

import { setImmediate } from "node:timers";
import { getLogger } from "@logtape/logtape";
import type { BlobStore } from "../blobs/blob_store.ts";
import { keepPayloads } from "./_keep_payloads.ts";
import { spillOutput } from "./_spill_output.ts";
import { blobSink, type OutputSink, spoolSink } from "./output_sink.ts";
import { serveBlobResources } from "./blob_resources.ts";
import { deliveryFor, errorResult, runSourceCall, type SourceCallEnd } from "./source_call.ts";
import { type ResolvedRoute, resolveToolRoutes, type ToolRoute } from "./tool_routes.ts";
import type { Acknowledgement, BarrierKind } from "./executor.ts";
import type { ParkedCall } from "./parked_call.ts";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  McpServer,
  type Tool,
  type Transport,
} from "./sdk.ts";
import type { ToolCallRelay } from "./tool_call_relay.ts";
import type { ToolDefinition, ToolSource } from "./tool_source.ts";

export type { ToolRoute } from "./tool_routes.ts";

/** The `_meta` key of a `tools/call` request that carries spillway's call id. */
export const CALL_ID_META_KEY = "spillway/callId";

/** Options of {@linkcode ExecutionService}. */
export interface ExecutionServiceOptions {
  /** The tool sources; their names must be unique. */
  readonly sources: readonly ToolSource[];
  /**
   * Exported name → source tool, for renames. Tools without an entry are
   * exported under their own name; a renamed tool only under its new name.
   * Default: no renames.
   */
  readonly toolNames?: Readonly<Record<string, ToolRoute>>;
  /** Which barrier a call of this (exported) tool parks on. The Host decides. */
  readonly barrierFor: (tool: string) => BarrierKind;
  /**
   * Where the whole output of spilling tools goes (`spill = true`), and
   * which tools spill. The output is stored durably before the call parks.
   * Default: no tool spills.
   */
  readonly spill?: SpillOptions;
  /**
   * Lets sources that stream their output (local tools, `fs_read_file`)
   * hold only a window of a large one and write the whole of it to a file
   * (the blob under `spill`). Default: outputs are held whole.
   */
  readonly output?: OutputOptions;
  /**
   * Where the payloads of non-text blocks (images, audio, embedded
   * resources) are kept, each under the digest the stream records for it,
   * durably before the call parks. Default: not kept.
   */
  readonly payloads?: BlobStore;
  /** Time source for `startedAt`/`parkedAt`. Default: `Date`. */
  readonly clock?: { now(): number };
  /** The MCP server identity. Default: `{ name: "spillway", version: "0.1.0" }`. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
}

/** Options of {@linkcode ExecutionService.callTool}. */
export interface CallToolOptions {
  /** The caller gave up (cancellation, disconnect): the call is cancelled and still parks. */
  readonly signal: AbortSignal;
  /**
   * The call id to park under. Default: the request's `_meta["spillway/callId"]`,
   * else a generated `ext_<n>`.
   */
  readonly callId?: string;
  /** The client session the call came from (`spillway serve`); marks the call external. */
  readonly session?: string;
  /** The caller's side of the call, for progress, logs, sampling and elicitation. Default: none. */
  readonly relay?: ToolCallRelay;
}

/** How large outputs are held; see {@linkcode ExecutionServiceOptions.output}. */
export interface OutputOptions {
  /**
   * Bytes of each end of a call's output to hold in memory: the most a cap
   * could deliver of it (the Host decides: the larger of the tool's
   * threshold and the batch ceiling).
   */
  readonly windowBytes: (tool: string) => number;
  /** Where outputs that do not spill are spooled until their call is released. */
  readonly spoolDir: string;
}

/** Which tools spill their whole output, and into which store. */
export interface SpillOptions {
  /** The blob store (`<workspace>/blobs`, or the database's). */
  readonly store: BlobStore;
  /** Whether calls of this (exported) tool spill. The Host decides. */
  readonly spills: (tool: string) => boolean;
}

/** Who waits for a call to park; see {@linkcode ExecutionService.whenParked}. */
export interface ParkWaiter {
  /** The call parked. */
  resolve(call: ParkedCall): void;
  /** The service gave up on the call (forgotten, or closed before it arrived). */
  reject(error: TypeError): void;
}

/** A call known to the service, from arrival until acknowledgement. */
interface Call {
  /** Aborts the source call; dropped once the call parks (nothing runs to abort then). */
  controller: AbortController | undefined;
  /** Settles the caller's `tools/call` with what it receives, once acknowledged. */
  readonly deliver: (result: CallToolResult | Promise<CallToolResult>) => void;
  /** Fails the caller's `tools/call` (its result could not be built). */
  readonly fail: (error: unknown) => void;
  parked?: ParkedCall;
  /** How the source call ended: set when the call parks. */
  end?: SourceCallEnd;
  /** The Host's decision: set when the call is acknowledged, delivered a slice later. */
  ack?: Acknowledgement;
}

/**
 * How many acknowledged calls get their result at once; the next slice goes
 * a macrotask later. A commit acknowledges its whole batch at once, and each
 * caller's result then takes several promise hops through the SDK (its
 * validation, the response, the client's validation): handed over all
 * together, every hop runs for the whole batch before the next hop runs for
 * any, and what one hop leaves for the next is alive for all of them at
 * once. A slice's results reach their callers before the next slice goes.
 */
export const DELIVERY_SLICE = 64;

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
  readonly #clock: { now(): number };
  readonly #calls = new Map<string, Call>();
  readonly #waiters = new Map<string, ParkWaiter[]>();
  readonly #pendingCancels = new Map<string, string>();
  readonly #listeners = new Set<(call: ParkedCall) => void>();
  readonly #toolListeners = new Set<() => void>();
  readonly #unsubscribeSources: (() => void)[] = [];
  readonly #servers = new Set<McpServer>();
  /** `tools/call` handlers still running, and who waits for them to drain (`close()`). */
  #handling = 0;
  #drained: PromiseWithResolvers<void> | undefined;
  /** Acknowledged calls, oldest first, whose callers get their result from `#deliveredUpTo` on. */
  #acknowledged: (Call | undefined)[] = [];
  #deliveredUpTo = 0;
  #routes = new Map<string, ResolvedRoute>();
  #tools: Tool[] = [];
  #state: "new" | "starting" | "started" | "closed" = "new";
  #closing: Promise<void> | undefined;
  #nextExternal = 0;

  /**
   * Creates a service; nothing runs until {@linkcode start}.
   *
   * @param options sources, renames, barrier policy; see {@linkcode ExecutionServiceOptions}
   */
  constructor(options: ExecutionServiceOptions) {
    this.#options = options;
    this.#clock = options.clock ?? Date;
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
    const listed = await Promise.all(
      this.#options.sources.map(async (source) => [source, await source.list()] as const),
    );
    this.#setRoutes(resolveToolRoutes(listed, this.#options.toolNames ?? {}));
    for (const source of this.#options.sources) {
      const unsubscribe = source.onToolsChanged?.(() => void this.#relist());
      if (unsubscribe !== undefined) this.#unsubscribeSources.push(unsubscribe);
    }
    if (this.#state === "starting") this.#state = "started";
  }

  /**
   * Calls `listener` whenever a source's tools changed and the exported
   * table was rebuilt ({@linkcode list} returns the new tools). Returns the
   * unsubscribe function.
   */
  onToolsChanged(listener: () => void): () => void {
    this.#toolListeners.add(listener);
    return () => this.#toolListeners.delete(listener);
  }

  #setRoutes(routes: Map<string, ResolvedRoute>): void {
    this.#routes = routes;
    this.#tools = [...routes.values()].map(({ definition }) => ({
      name: definition.name,
      description: definition.description,
      // MCP requires an object schema; sources may omit the `type`.
      inputSchema: { type: "object", ...definition.inputSchema } as Tool["inputSchema"],
    }));
  }

  /** Rebuilds the tool table after a source said its tools changed. */
  async #relist(): Promise<void> {
    try {
      const listed = await Promise.all(
        this.#options.sources.map(async (source) => [source, await source.list()] as const),
      );
      if (this.#state !== "started") return;
      this.#setRoutes(resolveToolRoutes(listed, this.#options.toolNames ?? {}));
    } catch (error) {
      // A rename that no longer resolves, a name two sources now export:
      // keep serving the table that worked.
      log.warn("a tool source's tools changed, but the tool table was kept: {error}", { error });
      return;
    }
    for (const listener of this.#toolListeners) listener();
  }

  /** Whether a tool of that exported name exists. */
  has(tool: string): boolean {
    return this.#routes.has(tool);
  }

  /**
   * The blob store spilled outputs go to (`spill = true`), or `undefined`
   * when no tool spills. Servers of this service's tools serve its blobs as
   * resources.
   */
  get blobStore(): BlobStore | undefined {
    return this.#options.spill?.store;
  }

  /** The exported tools (after renames), as callers see them. */
  list(): readonly ToolDefinition[] {
    return [...this.#routes.values()].map(({ definition }) => definition);
  }

  /** The calls currently parked, waiting for their acknowledgement. */
  parked(): readonly ParkedCall[] {
    return [...this.#calls.values()].flatMap((call) => call.parked ?? []);
  }

  /**
   * A new MCP server for one connection, serving this service's tools. The
   * service closes it in {@linkcode close}.
   *
   * @throws {TypeError} before {@linkcode start} or after {@linkcode close}
   */
  createServer(): McpServer {
    if (this.#state !== "started") {
      throw new TypeError(`cannot serve a ${this.#state} ExecutionService: start() it first`);
    }
    const info = this.#options.serverInfo ?? { name: "spillway", version: "0.1.0" };
    const server = new McpServer({ name: info.name, version: info.version });
    // Low-level handlers: sources hand us JSON Schemas, not zod shapes.
    server.server.registerCapabilities({ tools: {} });
    server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.#tools }));
    server.server.setRequestHandler(
      CallToolRequestSchema,
      (request, extra) => this.callTool(request, { signal: extra.signal }),
    );
    const blobs = this.blobStore;
    if (blobs !== undefined) serveBlobResources(server.server, blobs);
    server.server.onclose = () => this.#servers.delete(server);
    this.#servers.add(server);
    return server;
  }

  /** Serves this service's tools on `transport` (a new server per connection). */
  async connect(transport: Transport): Promise<McpServer> {
    const server = this.createServer();
    await server.connect(transport);
    return server;
  }

  /** Calls `listener` with every call as it parks. Returns the unsubscribe function. */
  onParked(listener: (call: ParkedCall) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Resolves when call `callId` is parked (immediately if it already is).
   * May be called before the call reaches the service. Rejects with a
   * `TypeError` if {@linkcode forget} or {@linkcode close} gives up on it.
   */
  waitParked(callId: string): Promise<ParkedCall> {
    const parked = this.#calls.get(callId)?.parked;
    if (parked !== undefined) return Promise.resolve(parked);
    const waiter = Promise.withResolvers<ParkedCall>();
    this.whenParked(callId, waiter);
    return waiter.promise;
  }

  /**
   * {@linkcode waitParked} with callbacks instead of a promise: `waiter.resolve`
   * is called when call `callId` parks (at once if it already has),
   * `waiter.reject` when the service gives up on it. The runtime's executor
   * uses this form: it saves two promises and a microtask hop per call.
   */
  whenParked(callId: string, waiter: ParkWaiter): void {
    const parked = this.#calls.get(callId)?.parked;
    if (parked !== undefined) {
      waiter.resolve(parked);
      return;
    }
    const waiters = this.#waiters.get(callId);
    if (waiters === undefined) this.#waiters.set(callId, [waiter]);
    else waiters.push(waiter);
  }

  /**
   * Gives up on a call that never reached the service (the caller's request
   * failed before it arrived): drops its pending cancellation and rejects its
   * {@linkcode waitParked} promises. A call that did arrive is not affected.
   */
  forget(callId: string): void {
    this.#pendingCancels.delete(callId);
    this.#rejectWaiters(callId, new TypeError(`call \`${callId}\` never reached the service`));
  }

  /**
   * Cancels call `callId`: its source call is aborted and the call parks as
   * `cancelled` (the Host then records and releases it like any other). If
   * the call has not reached the service yet, it is cancelled on arrival.
   *
   * @returns `false` when the call is already parked (nothing to cancel)
   */
  cancel(callId: string, reason = "cancelled"): boolean {
    const call = this.#calls.get(callId);
    if (call === undefined) {
      this.#pendingCancels.set(callId, reason);
      return true;
    }
    if (call.parked !== undefined) return false;
    call.controller?.abort(reason);
    return true;
  }

  /**
   * Releases parked call `callId` with the Host's decision: `deliver` hands
   * over the tool's own result (non-text blocks and `structuredContent`
   * included), `replace` exactly `ack.content` (non-text dropped), `fail` an
   * error with `ack.message`. The decision is taken now; the caller gets its
   * result once the calls acknowledged before it got theirs, at most
   * {@linkcode DELIVERY_SLICE} per macrotask.
   *
   * @throws {TypeError} when no call of that id is parked
   */
  acknowledge(callId: string, ack: Acknowledgement): void {
    const call = this.#calls.get(callId);
    if (call?.parked === undefined) throw new TypeError(`call \`${callId}\` is not parked`);
    this.#calls.delete(callId);
    call.ack = ack;
    this.#acknowledged.push(call);
    if (this.#acknowledged.length === 1) queueMicrotask(this.#deliverSlice);
  }

  /** Hands the next {@linkcode DELIVERY_SLICE} acknowledged calls their result. */
  readonly #deliverSlice = (): void => {
    const queue = this.#acknowledged;
    const end = Math.min(queue.length, this.#deliveredUpTo + DELIVERY_SLICE);
    while (this.#deliveredUpTo < end) {
      const call = queue[this.#deliveredUpTo] as Call;
      // Let the delivered call go: the queue may outlive many slices.
      queue[this.#deliveredUpTo++] = undefined;
      this.#deliver(call, call.ack as Acknowledgement);
    }
    if (this.#deliveredUpTo < queue.length) {
      setImmediate(this.#deliverSlice);
      return;
    }
    this.#acknowledged = [];
    this.#deliveredUpTo = 0;
  };

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
    for (const [callId, call] of this.#calls) {
      if (call.parked === undefined) call.controller?.abort("runtime closed");
      else this.acknowledge(callId, { kind: "fail", message: "runtime closed" });
    }
    this.#pendingCancels.clear();
    // Waiters of running calls resolve when those park (as cancelled); the
    // others wait for calls that will never come.
    for (const callId of [...this.#waiters.keys()]) {
      if (!this.#calls.has(callId)) {
        this.#rejectWaiters(callId, new TypeError(`call \`${callId}\` ended: runtime closed`));
      }
    }
    for (const unsubscribe of this.#unsubscribeSources.splice(0)) unsubscribe();
    await Promise.allSettled(this.#options.sources.map((source) => source.close()));
    if (this.#handling > 0) {
      this.#drained = Promise.withResolvers<void>();
      await this.#drained.promise;
    }
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
    // A parked call waits as this one promise and its two resolving
    // functions, kept in its `Call`: not as a suspended handler, nor as an
    // acknowledgement promise with a reaction over the handler's variables
    // (its abort controller, the caller's signal...). A batch parks thousands.
    return new Promise((deliver, fail) => void this.#run(request, options, deliver, fail));
  }

  // In-flight handlers are counted rather than kept in a set of promises:
  // one less promise and closure per call, which adds up over a batch.
  async #run(
    request: CallToolRequest,
    options: CallToolOptions,
    deliver: Call["deliver"],
    fail: Call["fail"],
  ): Promise<void> {
    const clientSignal = options.signal;
    this.#handling += 1;
    // Once the call is parked, its delivery counts the handler as done.
    let parked = false;
    try {
      const { name } = request.params;
      if (this.#state === "closed") return deliver(errorResult("runtime closed"));
      const route = this.#routes.get(name);
      if (route === undefined) return deliver(errorResult(`unknown tool \`${name}\``));
      const metaId = options.callId ?? request.params._meta?.[CALL_ID_META_KEY];
      const external = options.session !== undefined || typeof metaId !== "string" ||
        metaId === "";
      const callId = typeof metaId === "string" && metaId !== "" ? metaId : this.#externalId();
      if (this.#calls.has(callId)) {
        return deliver(errorResult(`call id \`${callId}\` is already in flight`));
      }
      const args = request.params.arguments ?? {};
      // Decided on arrival, before anything is registered: a throwing policy
      // fails this request alone.
      const barrier = this.#options.barrierFor(name);
      const spill = this.#options.spill?.spills(name) === true ? this.#options.spill : undefined;
      const output = this.#outputSink(name, spill);
      const startedAt = this.#clock.now();
      const controller = new AbortController();
      const call: Call = { controller, deliver, fail };
      this.#calls.set(callId, call);
      const onClientAbort = () =>
        controller.abort(clientSignal.reason ?? "cancelled by the caller");
      clientSignal.addEventListener("abort", onClientAbort, { once: true });
      if (clientSignal.aborted) onClientAbort();
      const pending = this.#pendingCancels.get(callId);
      if (pending !== undefined) {
        this.#pendingCancels.delete(callId);
        controller.abort(pending);
      }
      let end: SourceCallEnd;
      try {
        end = await runSourceCall(route, callId, args, controller.signal, {
          relay: options.relay,
          output,
        });
      } finally {
        clientSignal.removeEventListener("abort", onClientAbort);
      }
      if (spill !== undefined) end = await spillOutput(end, spill.store, log);
      if (end.payloads !== undefined) end = await keepPayloads(end, this.#options.payloads, log);
      const parkedCall: ParkedCall = {
        callId,
        tool: name,
        arguments: args,
        external,
        barrier,
        outcome: end.outcome,
        startedAt,
        parkedAt: this.#clock.now(),
      };
      parked = true;
      call.end = end;
      this.#park(
        callId,
        call,
        options.session === undefined ? parkedCall : {
          ...parkedCall,
          session: options.session,
        },
      );
    } catch (error) {
      fail(error);
    } finally {
      if (!parked) this.#handlerDone();
    }
  }

  /**
   * Settles the caller's `tools/call` of an acknowledged call with what it
   * receives; its handler is done then.
   */
  #deliver(call: Call, ack: Acknowledgement): void {
    const end = call.end as SourceCallEnd;
    const spooled = spoolFileOf(end);
    if (spooled === undefined) {
      try {
        call.deliver(deliveryFor(end, ack));
      } catch (error) {
        call.fail(error);
      } finally {
        this.#handlerDone();
      }
      return;
    }
    call.deliver(
      removeSpoolFile(spooled).then(() => deliveryFor(end, ack))
        .finally(() => this.#handlerDone()),
    );
  }

  #handlerDone(): void {
    this.#handling -= 1;
    if (this.#handling === 0) this.#drained?.resolve();
  }

  /** Where a call of `tool` streams a large output, as the Host's options say. */
  #outputSink(tool: string, spill: SpillOptions | undefined): OutputSink | undefined {
    const output = this.#options.output;
    if (output === undefined) return undefined;
    const windowBytes = output.windowBytes(tool);
    return spill === undefined
      ? spoolSink(output.spoolDir, windowBytes)
      : blobSink(spill.store, windowBytes, output.spoolDir);
  }

  #park(callId: string, call: Call, parked: ParkedCall): void {
    call.parked = parked;
    // A batch holds its parked calls until the commit: keep no more per call than needed.
    call.controller = undefined;
    for (const listener of this.#listeners) {
      try {
        listener(parked);
      } catch (error) {
        log.error("an onParked listener threw for {callId}: {error}", { callId, error });
      }
    }
    const waiters = this.#waiters.get(callId);
    this.#waiters.delete(callId);
    for (const waiter of waiters ?? []) waiter.resolve(parked);
    // A call that parks while the service closes must not wait for a Host that is gone.
    if (this.#state === "closed" && this.#calls.get(callId) === call) {
      this.acknowledge(callId, { kind: "fail", message: "runtime closed" });
    }
  }

  #rejectWaiters(callId: string, error: TypeError): void {
    const waiters = this.#waiters.get(callId);
    this.#waiters.delete(callId);
    for (const waiter of waiters ?? []) waiter.reject(error);
  }

  #externalId(): string {
    let id: string;
    do id = `ext_${++this.#nextExternal}`; while (this.#calls.has(id));
    return id;
  }
}

/** The spool file holding the whole output of an executed call, if it has one. */
function spoolFileOf(end: SourceCallEnd): string | undefined {
  if (end.outcome.kind !== "executed") return undefined;
  const window = end.outcome.response.window;
  return window?.temporary === true ? window.path : undefined;
}

/**
 * Removes a call's spool file once its caller has its result: it held the
 * whole output only for the Host (caps, the edit prompt, the terminal, which
 * moves it away to keep it). Stored outputs (`spill`) are never removed here.
 */
async function removeSpoolFile(path: string): Promise<void> {
  try {
    await Deno.remove(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      log.warn("could not remove the spooled output {path}: {error}", { path, error });
    }
  }
}
