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
import { deliveryDifference } from "./delivery_difference.ts";
import { reasonText } from "./reason_text.ts";
import { CALL_ID_META_KEY, type ExecutionService } from "./execution_service.ts";
import type {
  Acknowledgement,
  DeliveryOutcome,
  ExecutionHandle,
  ExecutionOutcome,
  Executor,
} from "./executor.ts";
import type { ParkedCall } from "./parked_call.ts";
import { type CallToolResult, Client, InMemoryTransport, type Transport } from "./sdk.ts";
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

type Settled =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly error: unknown };

function isCallToolResult(value: unknown): value is CallToolResult {
  return typeof value === "object" && value !== null && "content" in value &&
    Array.isArray(value.content);
}

function toExecutionOutcome(parked: ParkedCall): ExecutionOutcome {
  const { outcome } = parked;
  return outcome.kind === "executed"
    ? { kind: "executed", response: outcome.response, barrier: parked.barrier }
    : outcome;
}

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
    const service = this.#service;
    const { signal } = options;
    // The outcome is settled by whichever comes first, the park or the end of
    // the request; one resolver instead of a race of derived promises keeps
    // the per-call promise count (and garbage) down in large batches.
    const outcome = Promise.withResolvers<ExecutionOutcome>();
    let parkedCall: ParkedCall | undefined;
    let settledOutcome = false;
    const onAbort = () => service.cancel(call.id, reasonText(signal.reason));
    const settleOutcome = (result: ExecutionOutcome) => {
      if (settledOutcome) return;
      settledOutcome = true;
      signal.removeEventListener("abort", onAbort);
      outcome.resolve(result);
    };

    const settled: Promise<Settled> = this.#client.callTool(
      { name: call.name, arguments: { ...call.arguments }, _meta: { [CALL_ID_META_KEY]: call.id } },
      undefined,
      { timeout: PARK_REQUEST_TIMEOUT_MS },
    ).then((result) => ({ ok: true, result }), (error: unknown) => ({ ok: false, error }));

    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();

    service.whenParked(call.id, {
      resolve: (p) => settleOutcome(toExecutionOutcome(parkedCall = p)),
      reject: (error) => settleOutcome({ kind: "failed", reason: reasonText(error) }),
    });
    // A parked call holds its request open until release, so if the request
    // settles first, the call never parked (unknown tool, transport fault).
    settled.then((s) => {
      if (parkedCall !== undefined) return;
      const reason = !s.ok
        ? reasonText(s.error)
        : isCallToolResult(s.result)
        ? toToolCallResponse(call.id, s.result).content
        : "malformed tools/call result";
      settleOutcome({
        kind: "failed",
        reason: `call \`${call.id}\` did not reach its barrier: ${reason}`,
      });
      // After settling: forgetting rejects this call's waiter, which must not win.
      service.forget(call.id);
    });

    let released = false;
    return {
      outcome: outcome.promise,
      release: (ack, recorded) => {
        if (released) {
          return Promise.resolve({
            kind: "failed",
            message: `call \`${call.id}\` was already released`,
          });
        }
        released = true;
        return this.#release(
          call.id,
          settled,
          ack,
          recorded ?? expectedFor(call.id, ack, parkedCall),
        );
      },
    };
  }

  async #release(
    callId: string,
    settled: Promise<Settled>,
    ack: Acknowledgement,
    expected: ToolCallResponse,
  ): Promise<DeliveryOutcome> {
    try {
      this.#service.acknowledge(callId, ack);
    } catch (error) {
      if (ack.kind === "fail") return { kind: "failed", message: ack.message };
      return {
        kind: "failed",
        message: `call \`${callId}\` cannot be released: ${reasonText(error)}`,
      };
    }
    const s = await settled;
    if (ack.kind === "fail") return { kind: "failed", message: ack.message };
    if (!s.ok) {
      return {
        kind: "failed",
        message: `call \`${callId}\` was not delivered: ${reasonText(s.error)}`,
      };
    }
    if (!isCallToolResult(s.result)) {
      return { kind: "failed", message: `call \`${callId}\` got a malformed tools/call result` };
    }
    const received = toToolCallResponse(callId, s.result);
    const differs = deliveryDifference(expected, received);
    return differs === undefined
      ? { kind: "delivered", response: received }
      : { kind: "mismatch", ...differs };
  }

  /** Closes the client and its transport (not the service). */
  async close(): Promise<void> {
    await this.#client.close();
  }
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
