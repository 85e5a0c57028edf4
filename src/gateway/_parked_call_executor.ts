/**
 * An {@linkcode Executor} over calls that are already parked in the
 * execution service: `spillway serve`'s clients started them, so "starting"
 * one only hands its parked outcome to the phase, and releasing it
 * acknowledges it to the service. The client's request then settles with the
 * acknowledged result, which the gateway checks against what was recorded
 * before sending it ({@linkcode ParkedCallExecutor.delivered}).
 *
 * A call of a tool the service does not have never reaches it: the phase
 * answers it (as it answers an unknown tool in an assistant's message), and
 * releasing it hands that answer to its client ({@linkcode ParkedCallExecutor.answer}).
 *
 * @module
 */

import type { ToolCall } from "../review/tool_call.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import type { ExecutionService } from "../service/execution_service.ts";
import type {
  Acknowledgement,
  DeliveryOutcome,
  ExecutionHandle,
  ExecutionOutcome,
  Executor,
} from "../service/executor.ts";
import { checkDelivery } from "../service/check_delivery.ts";
import type { ParkedCall } from "../service/parked_call.ts";
import type { CallToolResult } from "../service/sdk.ts";
import { deliveryFor } from "../service/source_call.ts";
import { toToolCallResponse } from "../service/to_tool_call_response.ts";
import { reasonText } from "../errors/reason_text.ts";

interface Release {
  readonly ack: Acknowledgement;
  readonly recorded: ToolCallResponse | undefined;
  readonly delivery: PromiseWithResolvers<DeliveryOutcome>;
}

/** Runs nothing: it hands parked calls to a phase and releases them to their clients. */
export class ParkedCallExecutor implements Executor {
  readonly #service: ExecutionService;
  readonly #parked = new Map<string, ParkedCall>();
  /** Calls the service never saw (an unknown tool), waiting for the answer their phase records. */
  readonly #unanswered = new Map<string, PromiseWithResolvers<CallToolResult>>();
  readonly #releases = new Map<string, Release>();

  /** @param service where the calls are parked */
  constructor(service: ExecutionService) {
    this.#service = service;
  }

  /** Adds parked calls the next phase will "start". */
  add(calls: readonly ParkedCall[]): void {
    for (const call of calls) this.#parked.set(call.callId, call);
  }

  /**
   * Call `callId` names a tool the service does not have, so it will not run:
   * resolves with what its client receives once its phase released the
   * answer it recorded (then pass it through {@linkcode delivered}).
   */
  answer(callId: string): Promise<CallToolResult> {
    const answer = Promise.withResolvers<CallToolResult>();
    this.#unanswered.set(callId, answer);
    return answer.promise;
  }

  /** Every call handed to a phase exists: parked by the service, or to be answered by the phase. */
  has(): boolean {
    return true;
  }

  /**
   * The parked outcome of `call`; releasing acknowledges it to the service.
   * For a call waiting for its {@linkcode answer}, releasing hands it over.
   */
  start(call: ToolCall): ExecutionHandle {
    const parked = this.#parked.get(call.id);
    this.#parked.delete(call.id);
    const answer = this.#unanswered.get(call.id);
    const outcome: ExecutionOutcome = parked === undefined
      ? { kind: "failed", reason: `call \`${call.id}\` is not parked` }
      : parked.outcome;
    let released = false;
    return {
      outcome: Promise.resolve(outcome),
      release: (ack, recorded) => {
        if (released || (parked === undefined && answer === undefined)) {
          return Promise.resolve({
            kind: "failed",
            message: `call \`${call.id}\` cannot be released twice`,
          });
        }
        released = true;
        const release: Release = { ack, recorded, delivery: Promise.withResolvers() };
        this.#releases.set(call.id, release);
        if (answer !== undefined) {
          this.#unanswered.delete(call.id);
          answer.resolve(deliveryFor({ outcome }, ack));
          return release.delivery.promise;
        }
        try {
          this.#service.acknowledge(call.id, ack);
        } catch (error) {
          this.#releases.delete(call.id);
          return Promise.resolve({
            kind: "failed",
            message: `call \`${call.id}\` cannot be released: ${reasonText(error)}`,
          });
        }
        return release.delivery.promise;
      },
    };
  }

  /**
   * What the client of call `callId` gets, given the result the service
   * handed over: that result when it is what was recorded, block by block (or
   * when the Host failed the call), else an error saying so, never a result
   * the stream does not hold. Settles the release's delivery outcome.
   */
  delivered(callId: string, result: CallToolResult): CallToolResult {
    const release = this.#releases.get(callId);
    if (release === undefined) return result;
    this.#releases.delete(callId);
    const delivery = checkDelivery(
      release.ack,
      release.recorded,
      toToolCallResponse(callId, result),
    );
    release.delivery.resolve(delivery);
    if (delivery.kind === "mismatch") {
      return {
        content: [{
          type: "text",
          text: `the result of call \`${callId}\` differs from what was recorded: not delivered`,
        }],
        isError: true,
      };
    }
    return result;
  }

  /**
   * Fails call `callId` before its phase released it (the phase could not
   * run): a parked call is acknowledged with `message`, a call waiting for
   * its {@linkcode answer} gets it as an error.
   */
  fail(callId: string, message: string): void {
    this.#parked.delete(callId);
    const answer = this.#unanswered.get(callId);
    if (answer !== undefined) {
      this.#unanswered.delete(callId);
      answer.resolve(deliveryFor({ outcome: { kind: "failed", reason: message } }, {
        kind: "fail",
        message,
      }));
      return;
    }
    try {
      this.#service.acknowledge(callId, { kind: "fail", message });
    } catch {
      // Already released by the phase before it failed.
    }
  }

  /** Settles a release whose client went away before receiving it. */
  undelivered(callId: string, message: string): void {
    const release = this.#releases.get(callId);
    if (release === undefined) return;
    this.#releases.delete(callId);
    release.delivery.resolve({ kind: "failed", message });
  }
}
