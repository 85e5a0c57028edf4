/**
 * One call of the `McpExecutor`, from its `tools/call` to what its caller
 * received: the handle the Host holds. Everything it says to the service
 * goes over the executor's MCP connection: the request itself, and through
 * the executor's end of the channel (`executor_channel.ts`) the
 * cancellation, the acknowledgement and, for a call that never arrived, the
 * withdrawal of its cancellation; it learns that its call parked from the
 * channel's `parked` notification.
 *
 * @module
 */

import { reasonText } from "../errors/reason_text.ts";
import type { ToolCall } from "../review/tool_call.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import { CALL_ID_META_KEY, CANCELLED_META_KEY } from "./call_pipeline.ts";
import { checkDelivery } from "./check_delivery.ts";
import type {
  Acknowledgement,
  DeliveryOutcome,
  ExecutionHandle,
  ExecutionOutcome,
} from "./executor.ts";
import { type CallToolResult, CallToolResultSchema, type Client } from "./sdk.ts";
import { replacementResult } from "./source_call.ts";
import { toToolCallResponse } from "./to_tool_call_response.ts";
import { toolResultOf } from "./tool_result_of.ts";

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

/** The executor's end of the channel, as one call uses it. */
export interface ChannelEnd {
  /** The service should cancel call `callId` (it still parks). */
  cancel(callId: string, reason: string): void;
  /** Call `callId`, cancelled, never reached the service: its cancellation is withdrawn. */
  forget(callId: string): void;
  /** The Host's decision for parked call `callId` (sent with the others of the same tick). */
  acknowledge(callId: string, ack: Acknowledgement): void;
  /** Call `callId` no longer waits for its `parked` notification. */
  done(callId: string, call: ExecutorCall): void;
}

/** How a `tools/call` request ended: its result, validated by the SDK, or why it failed. */
type Settled =
  | { readonly ok: true; readonly result: CallToolResult }
  | { readonly ok: false; readonly error: unknown };

/**
 * One call in flight. It is the handle, the target of the `parked`
 * notification and the listener on the call's signal at once: a batch keeps
 * thousands of these until its commit, and one object with fields holds
 * less than the closures and derived promises it replaces.
 */
export class ExecutorCall implements ExecutionHandle {
  /** Settles once the service parked the call, or the request ended without parking. */
  readonly outcome: Promise<ExecutionOutcome>;
  readonly #call: ToolCall;
  readonly #channel: ChannelEnd;
  /** The call's signal, listened to until the outcome settles (then dropped: see `ExecutionLink`). */
  #signal: AbortSignal | undefined;
  /** The `tools/call` request; it stays open while the call is parked. */
  readonly #request: Promise<Settled>;
  /** Settles {@linkcode outcome}; cleared once it did. */
  #settle: ((outcome: ExecutionOutcome) => void) | undefined;
  /** How the call parked, once the service said so. */
  #parked: ExecutionOutcome | undefined;
  /** The request settled: a parked call the service let go (it closed) is parked no more. */
  #ended = false;
  #cancelled = false;
  #released = false;

  constructor(client: Client, channel: ChannelEnd, call: ToolCall, signal: AbortSignal) {
    this.#call = call;
    this.#channel = channel;
    this.#signal = signal;
    let settle: ((outcome: ExecutionOutcome) => void) | undefined;
    this.outcome = new Promise((resolve) => settle = resolve);
    this.#settle = settle;
    // A call cancelled before it started says so in its request: the
    // service cancels it on arrival and never runs the tool.
    const cancelledBefore = signal.aborted ? reasonText(signal.reason) : undefined;
    if (cancelledBefore !== undefined) this.#cancelled = true;
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
          _meta: {
            [CALL_ID_META_KEY]: call.id,
            ...(cancelledBefore === undefined ? {} : { [CANCELLED_META_KEY]: cancelledBefore }),
          },
        },
      },
      CallToolResultSchema,
      PARK_REQUEST_OPTIONS,
    ).then(
      (result) => this.#requestEnded({ ok: true, result }),
      (error: unknown) => this.#requestEnded({ ok: false, error }),
    );
    if (!signal.aborted) signal.addEventListener("abort", this, { once: true });
  }

  /** The call's signal aborted: the service cancels the call (which still parks). */
  handleEvent(): void {
    if (this.#settle === undefined) return;
    this.#cancelled = true;
    this.#channel.cancel(this.#call.id, reasonText(this.#signal?.reason));
  }

  /** The service parked the call (its `parked` notification). */
  parked(outcome: ExecutionOutcome): void {
    if (this.#ended) return;
    this.#parked = outcome;
    this.#settleOutcome(outcome);
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
    if (this.#parked === undefined || this.#ended) {
      return Promise.resolve({
        kind: "failed",
        message: ack.kind === "fail"
          ? ack.message
          : `call \`${callId}\` cannot be released: call \`${callId}\` is not parked`,
      });
    }
    const expected = recorded ?? expectedFor(callId, ack, this.#parked);
    this.#channel.acknowledge(callId, ack);
    return this.#request.then((settled) => deliveryOf(callId, settled, ack, expected));
  }

  #settleOutcome(outcome: ExecutionOutcome): void {
    const settle = this.#settle;
    if (settle === undefined) return;
    this.#settle = undefined;
    this.#signal?.removeEventListener("abort", this);
    this.#signal = undefined;
    this.#channel.done(this.#call.id, this);
    settle(outcome);
  }

  /**
   * A parked call holds its request open until release, so if the request
   * settles first, the call never parked (unknown tool, transport fault) or
   * the service let it go (it closed).
   */
  #requestEnded(settled: Settled): Settled {
    this.#ended = true;
    if (this.#parked === undefined) {
      const callId = this.#call.id;
      const reason = settled.ok
        ? toToolCallResponse(callId, toolResultOf(settled.result)).content
        : reasonText(settled.error);
      this.#settleOutcome({
        kind: "failed",
        reason: `call \`${callId}\` did not reach its barrier: ${reason}`,
      });
      if (this.#cancelled) this.#channel.forget(callId);
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
  if (!settled.ok) {
    return ack.kind === "fail" ? { kind: "failed", message: ack.message } : {
      kind: "failed",
      message: `call \`${callId}\` was not delivered: ${reasonText(settled.error)}`,
    };
  }
  return checkDelivery(ack, expected, toToolCallResponse(callId, toolResultOf(settled.result)));
}

/** Without a recorded response, the acknowledgement itself says what to expect. */
function expectedFor(
  callId: string,
  ack: Acknowledgement,
  parked: ExecutionOutcome,
): ToolCallResponse {
  if (ack.kind === "replace") return toToolCallResponse(callId, replacementResult(ack));
  if (ack.kind === "fail") return { id: callId, content: ack.message, isError: true };
  if (parked.kind === "executed") return parked.response;
  return { id: callId, content: parked.reason, isError: true };
}
