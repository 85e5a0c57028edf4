/**
 * One `tools/call` through the execution service: the call is named, its
 * barrier and output handling decided on arrival (the Host's policy), its
 * source runs it, its whole output is spilled and its payloads kept when
 * the Host asks for that, and the call parks in the lot. What the caller
 * receives is settled later, when the Host acknowledges the parked call.
 *
 * @module
 */

import type { Logger } from "@logtape/logtape";
import type { BlobOwners } from "../blobs/blob_owners.ts";
import type { BlobStore } from "../blobs/blob_store.ts";
import { keepPayloads } from "./_keep_payloads.ts";
import { spillOutput } from "./_spill_output.ts";
import type { BarrierKind } from "./executor.ts";
import { blobSink, type OutputSink, spoolSink } from "./output_sink.ts";
import type { ParkedCall } from "./parked_call.ts";
import type { CallerSide, ParkChannel } from "./_hand_over.ts";
import type { ParkingLot } from "./parking_lot.ts";
import type { CallToolRequest, CallToolResult } from "./sdk.ts";
import { errorResult, runSourceCall, type SourceCallEnd } from "./source_call.ts";
import type { ToolCallRelay } from "./tool_call_relay.ts";
import type { ToolTable } from "./tool_table.ts";

/** The `_meta` key of a `tools/call` request that carries spillway's call id. */
export const CALL_ID_META_KEY = "spillway/callId";

/**
 * The `_meta` key by which the runtime's executor sends a call its Host
 * cancelled before it started: the reason. The call is cancelled on
 * arrival and its tool never runs. (A `cancel` notification sent after the
 * request could reach the service after the call started: the MCP SDK
 * handles notifications a microtask later than requests.)
 */
export const CANCELLED_META_KEY = "spillway/cancelled";

/** Options of one call; see `ExecutionService.callTool`. */
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
  /**
   * The client the call is for (`spillway serve`: the one whose token opened
   * the session): sources keep their per-caller state per principal (an
   * upstream server's connection). Default: none, spillway's own.
   */
  readonly principal?: string;
  /** The caller's side of the call, for progress, logs, sampling and elicitation. Default: none. */
  readonly relay?: ToolCallRelay;
  /**
   * The executor channel of the caller's connection, told when the call
   * parks (`executor_channel.ts`). Default: none (the caller learns nothing
   * before its result).
   */
  readonly channel?: ParkChannel;
}

/** How large outputs are held; see `ExecutionServiceOptions.output`. */
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
  /**
   * Who produced which stored output: a call with a principal (a `spillway
   * serve` client) records its output as that client's, durably, before it
   * parks; `read_tool_output` and the output resources then answer that
   * client only. Default: no records (every caller reads every output).
   */
  readonly owners?: BlobOwners;
  /** Whether calls of this (exported) tool spill. The Host decides. */
  readonly spills: (tool: string) => boolean;
}

/** What the pipeline decides with and where it keeps things; see `ExecutionServiceOptions`. */
export interface PipelinePolicy {
  readonly barrierFor: (tool: string) => BarrierKind;
  readonly spill?: SpillOptions | undefined;
  readonly output?: OutputOptions | undefined;
  readonly payloads?: BlobStore | undefined;
  readonly clock: { now(): number };
}

/** Runs `tools/call` requests into the parking lot. */
export class CallPipeline {
  readonly #table: ToolTable;
  readonly #lot: ParkingLot;
  readonly #policy: PipelinePolicy;
  readonly #log: Logger;
  #nextExternal = 0;

  /**
   * @param table the tools to run
   * @param lot where the calls park
   * @param policy the Host's decisions and the stores; see {@linkcode PipelinePolicy}
   * @param log where stores that failed are logged
   */
  constructor(table: ToolTable, lot: ParkingLot, policy: PipelinePolicy, log: Logger) {
    this.#table = table;
    this.#lot = lot;
    this.#policy = policy;
    this.#log = log;
  }

  /**
   * Runs one `tools/call` and resolves with what the caller receives once
   * the Host acknowledged the parked call.
   */
  call(request: CallToolRequest, options: CallToolOptions): Promise<CallToolResult> {
    // A parked call waits as this one promise and its two resolving
    // functions, kept in the lot: not as a suspended handler, nor as an
    // acknowledgement promise with a reaction over the handler's variables
    // (its abort controller, the caller's signal...). A batch parks thousands.
    return new Promise((deliver, fail) => void this.#run(request, options, { deliver, fail }));
  }

  async #run(
    request: CallToolRequest,
    options: CallToolOptions,
    caller: Pick<CallerSide, "deliver" | "fail">,
  ): Promise<void> {
    const lot = this.#lot;
    let callId: string | undefined;
    let parked = false;
    try {
      const { name } = request.params;
      if (lot.closed) return caller.deliver(errorResult("runtime closed"));
      const route = this.#table.route(name);
      if (route === undefined) return caller.deliver(errorResult(`unknown tool \`${name}\``));
      const metaId = options.callId ?? request.params._meta?.[CALL_ID_META_KEY];
      const named = typeof metaId === "string" && metaId !== "";
      const external = options.session !== undefined || !named;
      const id = named ? metaId : this.#externalId();
      if (lot.has(id)) return caller.deliver(errorResult(`call id \`${id}\` is already in flight`));
      const args = request.params.arguments ?? {};
      // Decided on arrival, before anything is registered: a throwing policy
      // fails this request alone.
      const { spill, clock, payloads } = this.#policy;
      const barrier = this.#policy.barrierFor(name);
      const spills = spill?.spills(name) === true ? spill : undefined;
      const output = this.#outputSink(name, spills);
      const startedAt = clock.now();
      const { session, channel } = options;
      const controller = lot.arrive(id, { ...caller, session, channel });
      callId = id;
      const cancelledBefore = request.params._meta?.[CANCELLED_META_KEY];
      if (channel !== undefined && typeof cancelledBefore === "string") {
        controller.abort(cancelledBefore);
      }
      const clientSignal = options.signal;
      const onClientAbort = () =>
        controller.abort(clientSignal.reason ?? "cancelled by the caller");
      clientSignal.addEventListener("abort", onClientAbort, { once: true });
      if (clientSignal.aborted) onClientAbort();
      let end: SourceCallEnd;
      try {
        end = await runSourceCall(route, id, args, controller.signal, {
          relay: options.relay,
          output,
          principal: options.principal,
        });
      } finally {
        clientSignal.removeEventListener("abort", onClientAbort);
      }
      if (spills !== undefined) end = await spillOutput(end, spills, this.#log, options.principal);
      if (end.payloads !== undefined) end = await keepPayloads(end, payloads, this.#log);
      const call: ParkedCall = {
        callId: id,
        tool: name,
        arguments: args,
        external,
        barrier,
        outcome: end.outcome,
        startedAt,
        parkedAt: clock.now(),
      };
      parked = true;
      lot.park(
        id,
        options.session === undefined ? call : { ...call, session: options.session },
        end,
      );
    } catch (error) {
      // A fault of the service's own (a throwing policy, clock or store): the caller gets it.
      if (callId === undefined || parked) caller.fail(error);
      else lot.fault(callId, error);
    }
  }

  /** Where a call of `tool` streams a large output, as the Host's options say. */
  #outputSink(tool: string, spill: SpillOptions | undefined): OutputSink | undefined {
    const output = this.#policy.output;
    if (output === undefined) return undefined;
    const windowBytes = output.windowBytes(tool);
    return spill === undefined
      ? spoolSink(output.spoolDir, windowBytes)
      : blobSink(spill.store, windowBytes, output.spoolDir);
  }

  #externalId(): string {
    let id: string;
    do id = `ext_${++this.#nextExternal}`; while (this.#lot.has(id));
    return id;
  }
}
