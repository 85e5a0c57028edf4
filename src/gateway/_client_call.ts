/**
 * A `spillway serve` client's call as its phase holds it: the
 * {@linkcode ExecutionHandle} a phase joins (`PhaseInput.joined`), over a
 * call the client started. Nothing is started through it: "starting" it
 * hands the phase the outcome the service parked, and releasing it
 * acknowledges the call to the service. The client's request then settles
 * with the acknowledged result, which {@linkcode ClientCall.delivered}
 * checks against what was recorded before the client gets it.
 *
 * A call of a tool the service does not have never reaches it: the phase
 * answers it (as it answers an unknown tool in an assistant's message), and
 * releasing its handle hands that answer over ({@linkcode ClientCall.answered}).
 *
 * @module
 */

import type { ToolCallResponse } from "../review/tool_call_response.ts";
import { reasonText } from "../errors/reason_text.ts";
import { checkDelivery } from "../service/check_delivery.ts";
import type { ExecutionService } from "../service/execution_service.ts";
import type {
  Acknowledgement,
  DeliveryOutcome,
  ExecutionHandle,
  ExecutionOutcome,
} from "../service/executor.ts";
import type { ParkedCall } from "../service/parked_call.ts";
import type { CallToolResult } from "../service/sdk.ts";
import { deliveryFor } from "../service/source_call.ts";
import { toToolCallResponse } from "../service/to_tool_call_response.ts";
import { toolResultOf } from "../service/tool_result_of.ts";

/** A release waiting for the result its client gets. */
interface Release {
  readonly ack: Acknowledgement;
  readonly recorded: ToolCallResponse | undefined;
  readonly delivery: PromiseWithResolvers<DeliveryOutcome>;
}

/** One client call joined to a phase: parked in the service, or answered by its phase. */
export class ClientCall implements ExecutionHandle {
  /** The outcome the service parked (a call it never saw: not parked). Never rejects. */
  readonly outcome: Promise<ExecutionOutcome>;
  readonly #ended: ExecutionOutcome;
  readonly #callId: string;
  /** The service holding the parked call; `undefined` for a call its phase answers. */
  readonly #service: ExecutionService | undefined;
  /** For a call its phase answers: that answer, once released. */
  readonly #answer: PromiseWithResolvers<CallToolResult> | undefined;
  #released = false;
  #release: Release | undefined;

  private constructor(
    callId: string,
    outcome: ExecutionOutcome,
    service: ExecutionService | undefined,
  ) {
    this.#callId = callId;
    this.#ended = outcome;
    this.outcome = Promise.resolve(outcome);
    this.#service = service;
    this.#answer = service === undefined ? Promise.withResolvers() : undefined;
  }

  /** The handle of a call the service parked. */
  static parked(service: ExecutionService, parked: ParkedCall): ClientCall {
    return new ClientCall(parked.callId, parked.outcome, service);
  }

  /** The handle of a call of a tool the service does not have: its phase answers it. */
  static unanswered(callId: string): ClientCall {
    return new ClientCall(
      callId,
      { kind: "failed", reason: `call \`${callId}\` is not parked` },
      undefined,
    );
  }

  /**
   * What the client of a call its phase answers gets, once the phase
   * released the answer it recorded (pass it through {@linkcode delivered}).
   * Never settles for a parked call: the service delivers those.
   */
  get answered(): Promise<CallToolResult> {
    return this.#answer?.promise ?? new Promise(() => {});
  }

  /**
   * Acknowledges the parked call to the service (or hands the phase's answer
   * over), once. Resolves with what the client received, once
   * {@linkcode delivered} checked it.
   */
  release(ack: Acknowledgement, recorded: ToolCallResponse | undefined): Promise<DeliveryOutcome> {
    const callId = this.#callId;
    if (this.#released) {
      return Promise.resolve({
        kind: "failed",
        message: `call \`${callId}\` cannot be released twice`,
      });
    }
    this.#released = true;
    const release: Release = { ack, recorded, delivery: Promise.withResolvers() };
    this.#release = release;
    if (this.#answer !== undefined) {
      this.#answer.resolve(deliveryFor({ outcome: this.#ended }, ack));
      return release.delivery.promise;
    }
    try {
      this.#service?.acknowledge(callId, ack);
    } catch (error) {
      this.#release = undefined;
      return Promise.resolve({
        kind: "failed",
        message: `call \`${callId}\` cannot be released: ${reasonText(error)}`,
      });
    }
    return release.delivery.promise;
  }

  /**
   * What the client gets, given the result the service handed over (or the
   * answer): that result when it is what was recorded, block by block (or
   * when the Host failed the call), else an error saying so, never a result
   * the stream does not hold. Settles the release's delivery outcome.
   */
  delivered(result: CallToolResult): CallToolResult {
    const release = this.#release;
    if (release === undefined) return result;
    this.#release = undefined;
    const delivery = checkDelivery(
      release.ack,
      release.recorded,
      toToolCallResponse(this.#callId, toolResultOf(result)),
    );
    release.delivery.resolve(delivery);
    if (delivery.kind !== "mismatch") return result;
    return {
      content: [{
        type: "text",
        text:
          `the result of call \`${this.#callId}\` differs from what was recorded: not delivered`,
      }],
      isError: true,
    };
  }

  /**
   * Fails the call before its phase released it (the phase could not run):
   * a parked call is acknowledged with `message`, a call its phase answers
   * gets `message` as an error. A call already released is not affected.
   */
  fail(message: string): void {
    if (this.#released) return;
    this.#released = true;
    if (this.#answer !== undefined) {
      this.#answer.resolve(deliveryFor({ outcome: { kind: "failed", reason: message } }, {
        kind: "fail",
        message,
      }));
      return;
    }
    try {
      this.#service?.acknowledge(this.#callId, { kind: "fail", message });
    } catch {
      // The service let the call go already (it closed).
    }
  }
}
