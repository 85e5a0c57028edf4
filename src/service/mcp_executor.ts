/**
 * The runtime's real executor: an MCP `Client` linked to the execution
 * service over an in-memory transport. It runs each call through the same
 * `tools/call` path external callers use, learns the parked outcome from the
 * service, and on release checks that what it received is what was
 * recorded (rule 1 of docs/architecture.md: recorded and delivered are one
 * decision).
 *
 * @module
 */

import type { ToolCall } from "../review/tool_call.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import { checkDelivery } from "./check_delivery.ts";
import { reasonText } from "../errors/reason_text.ts";
import { CALL_ID_META_KEY, type ExecutionService, type ParkWaiter } from "./execution_service.ts";
import type {
  Acknowledgement,
  DeliveryOutcome,
  ExecutionHandle,
  ExecutionOutcome,
  Executor,
} from "./executor.ts";
import type { ParkedCall } from "./parked_call.ts";
import {
  type CallToolResult,
  CallToolResultSchema,
  Client,
  InMemoryTransport,
  type Transport,
} from "./sdk.ts";
import { toToolCallResponse } from "./to_tool_call_response.ts";

/**
 * The MCP request timeout of the executor's `tools/call`, in ms: the longest
 * `setTimeout` delay (2^31 − 1 ms, about 24.8 days). A call stays open while
 * it is parked, and a park lasts as long as a human review (`ask`, `edit`)
 * or a slow sibling's commit; the SDK's 60 s default would fail such calls.
 * A larger value would overflow the timer and fire at once. Cancellation and
 * time limits are the Host's business (its abort signal), not the transport's.
 */
export const PARK_REQUEST_TIMEOUT_MS = 2 ** 31 - 1;

/** The options of every `tools/call` the executor sends: one object, not one per call. */
const PARK_REQUEST_OPTIONS = Object.freeze({ timeout: PARK_REQUEST_TIMEOUT_MS });

/** Options of {@linkcode McpExecutor.connect}. */
export interface McpExecutorOptions {
  /**
   * Makes the two ends of the link between the executor's MCP client and
   * the service: `[client side, server side]`. Any pair that carries
   * messages in order serves (a pair over a worker's `MessagePort`, or one
   * wrapped to watch the traffic). Default: `InMemoryTransport.createLinkedPair`.
   */
  readonly link?: () => [Transport, Transport];
}

/** How a `tools/call` request ended: its result, validated by the SDK, or why it failed. */
type Settled =
  | { readonly ok: true; readonly result: CallToolResult }
  | { readonly ok: false; readonly error: unknown };

/**
 * Runs calls through the execution service as an MCP client.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExecutionService } from "./execution_service.ts";
 * import { McpExecutor } from "./mcp_executor.ts";
 * import { BuiltinToolSource } from "./builtin/builtin_tool_source.ts";
 * const source = new BuiltinToolSource({ cwd: ".", tools: [] }).register({
 *   name: "hello",
 *   description: "Say hello.",
 *   inputSchema: { type: "object" },
 *   run: () => Promise.resolve("hello"),
 * });
 * const service = new ExecutionService({ sources: [source], barrierFor: () => "record" });
 * await service.start();
 * const executor = await McpExecutor.connect(service);
 * const handle = executor.start(
 *   { id: "call_1", name: "hello", arguments: {} },
 *   { signal: new AbortController().signal },
 * );
 * const outcome = await handle.outcome;
 * assert.equal(outcome.kind, "executed");
 * const recorded = { id: "call_1", content: "hello", isError: false };
 * assert.deepEqual(await handle.release({ kind: "deliver" }, recorded), {
 *   kind: "delivered",
 *   response: recorded,
 * });
 * await executor.close();
 * await service.close();
 * ```
 */
export class McpExecutor implements Executor {
  readonly #service: ExecutionService;
  readonly #client: Client;

  private constructor(service: ExecutionService, client: Client) {
    this.#service = service;
    this.#client = client;
  }

  /**
   * Links a new MCP client to `service` (which must be started).
   *
   * @param service the started execution service
   * @param options how the client reaches the service; see {@linkcode McpExecutorOptions}
   * @throws {TypeError} when the service is not started
   */
  static async connect(
    service: ExecutionService,
    options: McpExecutorOptions = {},
  ): Promise<McpExecutor> {
    const link = options.link ?? (() => InMemoryTransport.createLinkedPair());
    const [clientTransport, serverTransport] = link();
    await service.connect(serverTransport);
    const client = new Client({ name: "spillway-executor", version: "0.1.0" });
    await client.connect(clientTransport);
    return new McpExecutor(service, client);
  }

  /** Whether the service exports a tool of that name. */
  has(tool: string): boolean {
    return this.#service.has(tool);
  }

  /**
   * Sends `tools/call` with `spillway/callId` = `call.id`. The handle's
   * outcome settles when the service parks the call. When `signal` aborts,
   * the service cancels the call (it still parks, as `cancelled`, so the
   * Host records the cancellation and releases it like any other call).
   */
  start(call: ToolCall, options: { readonly signal: AbortSignal }): ExecutionHandle {
    return new ExecutorCall(this.#client, this.#service, call, options.signal);
  }

  /** Closes the client and its transport (not the service). */
  async close(): Promise<void> {
    await this.#client.close();
  }
}

/**
 * One call of the executor, from its `tools/call` to what its caller
 * received. It is the handle the Host holds, the service's park waiter and
 * the listener on the call's signal at once: a batch keeps thousands of
 * these until its commit, and one object with fields holds less than the
 * closures, waiter objects and derived promises it replaces.
 */
class ExecutorCall implements ExecutionHandle, ParkWaiter {
  /** Settles once the service parked the call, or the request ended without parking. */
  readonly outcome: Promise<ExecutionOutcome>;
  readonly #call: ToolCall;
  readonly #service: ExecutionService;
  /** The call's signal, listened to until the outcome settles (then dropped: see `ExecutionLink`). */
  #signal: AbortSignal | undefined;
  /** The `tools/call` request; it stays open while the call is parked. */
  readonly #request: Promise<Settled>;
  /** Settles {@linkcode outcome}; cleared once it did. */
  #settle: ((outcome: ExecutionOutcome) => void) | undefined;
  #parked: ParkedCall | undefined;
  #released = false;

  constructor(client: Client, service: ExecutionService, call: ToolCall, signal: AbortSignal) {
    this.#call = call;
    this.#service = service;
    this.#signal = signal;
    let settle: ((outcome: ExecutionOutcome) => void) | undefined;
    this.outcome = new Promise((resolve) => settle = resolve);
    this.#settle = settle;
    // `request` rather than `callTool`: the same `tools/call` message and the
    // same validation of the result, without `callTool`'s async function,
    // which a parked call would keep suspended until its release (the
    // service's tools declare no output schema for `callTool` to check).
    this.#request = client.request(
      {
        method: "tools/call",
        params: {
          name: call.name,
          arguments: { ...call.arguments },
          _meta: { [CALL_ID_META_KEY]: call.id },
        },
      },
      CallToolResultSchema,
      PARK_REQUEST_OPTIONS,
    ).then(
      (result) => this.#requestEnded({ ok: true, result }),
      (error: unknown) => this.#requestEnded({ ok: false, error }),
    );
    signal.addEventListener("abort", this, { once: true });
    if (signal.aborted) this.handleEvent();
    service.whenParked(call.id, this);
  }

  /** The call's signal aborted: the service cancels the call (which still parks). */
  handleEvent(): void {
    this.#service.cancel(this.#call.id, reasonText(this.#signal?.reason));
  }

  /** The service parked the call. */
  resolve(parked: ParkedCall): void {
    this.#parked = parked;
    this.#settleOutcome(parked.outcome);
  }

  /** The service gave up on the call. */
  reject(error: TypeError): void {
    this.#settleOutcome({ kind: "failed", reason: reasonText(error) });
  }

  release(ack: Acknowledgement, recorded: ToolCallResponse | undefined): Promise<DeliveryOutcome> {
    const callId = this.#call.id;
    if (this.#released) {
      return Promise.resolve({
        kind: "failed",
        message: `call \`${callId}\` was already released`,
      });
    }
    this.#released = true;
    const expected = recorded ?? expectedFor(callId, ack, this.#parked);
    try {
      this.#service.acknowledge(callId, ack);
    } catch (error) {
      return Promise.resolve(
        ack.kind === "fail" ? { kind: "failed", message: ack.message } : {
          kind: "failed",
          message: `call \`${callId}\` cannot be released: ${reasonText(error)}`,
        },
      );
    }
    return this.#request.then((settled) => deliveryOf(callId, settled, ack, expected));
  }

  #settleOutcome(outcome: ExecutionOutcome): void {
    const settle = this.#settle;
    if (settle === undefined) return;
    this.#settle = undefined;
    this.#signal?.removeEventListener("abort", this);
    this.#signal = undefined;
    settle(outcome);
  }

  /**
   * A parked call holds its request open until release, so if the request
   * settles first, the call never parked (unknown tool, transport fault).
   */
  #requestEnded(settled: Settled): Settled {
    if (this.#parked === undefined) {
      const callId = this.#call.id;
      const reason = settled.ok
        ? toToolCallResponse(callId, settled.result).content
        : reasonText(settled.error);
      this.#settleOutcome({
        kind: "failed",
        reason: `call \`${callId}\` did not reach its barrier: ${reason}`,
      });
      // After settling: forgetting rejects this call's waiter, which must not win.
      this.#service.forget(callId);
    }
    return settled;
  }
}

/** What the caller of a released call received, checked against what was recorded. */
function deliveryOf(
  callId: string,
  settled: Settled,
  ack: Acknowledgement,
  expected: ToolCallResponse,
): DeliveryOutcome {
  if (ack.kind === "fail") return { kind: "failed", message: ack.message };
  if (!settled.ok) {
    return {
      kind: "failed",
      message: `call \`${callId}\` was not delivered: ${reasonText(settled.error)}`,
    };
  }
  return checkDelivery(ack, expected, toToolCallResponse(callId, settled.result));
}

/** Without a recorded response, the acknowledgement itself says what to expect. */
function expectedFor(
  callId: string,
  ack: Acknowledgement,
  parked: ParkedCall | undefined,
): ToolCallResponse {
  if (ack.kind === "replace") return { id: callId, content: ack.content, isError: ack.isError };
  if (ack.kind === "fail") return { id: callId, content: ack.message, isError: true };
  const outcome = parked?.outcome;
  if (outcome?.kind === "executed") return outcome.response;
  return { id: callId, content: outcome?.reason ?? "", isError: true };
}
