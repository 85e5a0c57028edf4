/**
 * The executor interface: how a toolCall machine runs one call and, after
 * the commit, releases it. The real executor is an MCP client talking to the
 * in-process execution service; tests use a `MockExecutor` with canned
 * results that goes through the same phase end and commit.
 *
 * @module
 */

import type { ToolCall } from "../review/tool_call.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import type { CancellationCause } from "./call_cancellation.ts";

/** Which barrier an executed call is parked on. */
export type BarrierKind = "record" | "review";

/**
 * How a call ended before the Host saw a result: what the execution service
 * parks, and what an executor's handle settles with. (Which barrier it is
 * parked on is the Host's own decision, `barrierFor`: the service notes it
 * on the parked call, and the outcome does not repeat it.)
 */
export type ExecutionOutcome =
  /** The tool ran; its raw (uncapped) response is parked on the barrier. */
  | { readonly kind: "executed"; readonly response: ToolCallResponse }
  /** The tool source died mid-call (process exit, upstream crash). */
  | { readonly kind: "lost"; readonly reason: string }
  /**
   * The call was cancelled (abort signal, Ctrl-C, timeout); `cause` says by
   * whom when the canceller said so (a gateway client, its disconnection,
   * the gateway's shutdown: `CallCancellation`).
   */
  | { readonly kind: "cancelled"; readonly reason: string; readonly cause?: CancellationCause }
  /** The runtime failed to run the call at all (transport fault, unknown tool). */
  | { readonly kind: "failed"; readonly reason: string };

/**
 * The Host's reply to a parked call. `deliver` hands the service's own result
 * over; `replace` delivers the given content instead (exactly when the
 * review was replaced): the text as one block, and the structured content
 * the Host's cut kept, when it kept one; `fail` delivers an error (the
 * result was not recorded).
 */
export type Acknowledgement =
  | { readonly kind: "deliver" }
  | {
    readonly kind: "replace";
    readonly content: string;
    readonly isError: boolean;
    /** The structured content to deliver with the text (a cut of the tool's own). Default: none. */
    readonly structuredContent?: Readonly<Record<string, unknown>>;
    /**
     * Present when `structuredContent` is a cut of the tool's own: the UTF-8
     * bytes of the compact JSON before and after the cut, which the result's
     * `_meta` tells the caller. Default: none.
     */
    readonly structuredCut?: { readonly originalBytes: number; readonly bytes: number };
  }
  | { readonly kind: "fail"; readonly message: string };

/**
 * What the caller finally received, checked against what was recorded:
 * `delivered` when it is the recorded response (an executor may hand back
 * the recorded object itself then), `mismatch` with both sides shortened
 * when it differs, `failed` when the caller got an error.
 */
export type DeliveryOutcome =
  | { readonly kind: "delivered"; readonly response: ToolCallResponse }
  | { readonly kind: "mismatch"; readonly expected: string; readonly received: string }
  | { readonly kind: "failed"; readonly message: string };

/** One call in flight. */
export interface ExecutionHandle {
  /** Settles once the call is parked on its barrier, or ended early. Never rejects. */
  readonly outcome: Promise<ExecutionOutcome>;
  /**
   * Releases the parked call with the Host's decision. `recorded` is the
   * response that was recorded in the stream; the delivery is checked
   * against it. Resolves with what the caller received. Never rejects.
   */
  release(ack: Acknowledgement, recorded: ToolCallResponse | undefined): Promise<DeliveryOutcome>;
}

/** Runs tool calls. */
export interface Executor {
  /** Whether a tool of that name exists (unknown tools get a synthesized response). */
  has(tool: string): boolean;
  /** Starts a call. `signal` cancels it. */
  start(call: ToolCall, options: { readonly signal: AbortSignal }): ExecutionHandle;
}
