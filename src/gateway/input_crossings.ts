/**
 * What the calls of one conversation asked their client for while they ran
 * (an upstream server's elicitation, sampling and roots requests) and how
 * the client answered, kept until the call's batch is recorded: the
 * `tool_call_input` events go into the same append as the call's request
 * and response, so they are durable together. Sizes and kinds; the
 * contents too only when asked (`serve.record_input_contents`: an
 * elicitation's answer is a person's words).
 *
 * @module
 */

import { type CallerRequest, inputKind } from "../service/tool_call_relay.ts";
import type { ToolCallInputEvent } from "../stream/events.ts";

const encoder = new TextEncoder();

/** UTF-8 bytes of `value` as compact JSON (0 for `undefined`). */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : encoder.encode(text).length;
}

/**
 * The `tool_call_input` events of one conversation's calls in flight.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InputCrossings } from "./input_crossings.ts";
 * const crossings = new InputCrossings();
 * const request = { method: "elicitation/create" as const, params: { message: "Name?" } };
 * const answered = crossings.asked("call_1", request, "input_required");
 * answered({ action: "accept", content: { name: "Ada" } });
 * const [event] = crossings.take(["call_1"]);
 * assert.equal(event?.kind, "elicitation");
 * assert.equal(event?.outcome, "accept");
 * assert.deepEqual(crossings.take(["call_1"]), []);
 * ```
 */
export class InputCrossings {
  readonly #byCall = new Map<string, ToolCallInputEvent[]>();
  readonly #contents: boolean;

  /** @param options `contents`: record the requests and answers whole (default: sizes only) */
  constructor(options: { readonly contents?: boolean } = {}) {
    this.#contents = options.contents ?? false;
  }

  /**
   * Notes that call `callId` sent `request` to its client, by `via`;
   * returns the function that notes the answer (an object) or the failure
   * (an `Error`). A request never answered is recorded as failed.
   */
  asked(
    callId: string,
    request: CallerRequest,
    via: ToolCallInputEvent["via"],
  ): (answer: Readonly<Record<string, unknown>> | Error) => void {
    const events = this.#byCall.get(callId) ?? [];
    this.#byCall.set(callId, events);
    const index = events.length;
    const asked: ToolCallInputEvent = {
      type: "tool_call_input",
      id: callId,
      kind: inputKind(request.method),
      via,
      request_bytes: jsonBytes(request.params),
      ...(this.#contents ? { request: request.params } : {}),
      outcome: "failed",
      reason: "the client did not answer before the call ended",
      at: new Date().toISOString(),
    };
    events.push(asked);
    return (answer) => {
      if (answer instanceof Error) {
        events[index] = { ...asked, reason: answer.message };
        return;
      }
      const action = answer.action;
      const { reason: _, ...rest } = asked;
      events[index] = {
        ...rest,
        answer_bytes: jsonBytes(answer),
        ...(this.#contents ? { answer } : {}),
        outcome: action === "accept" || action === "decline" || action === "cancel"
          ? action
          : "answered",
      };
    };
  }

  /** The events of `callIds` (in call order, each call's in the order asked), forgotten here. */
  take(callIds: readonly string[]): ToolCallInputEvent[] {
    return callIds.flatMap((id) => {
      const events = this.#byCall.get(id) ?? [];
      this.#byCall.delete(id);
      return events;
    });
  }

  /** Forgets call `callId` (it was never recorded by this conversation). */
  forget(callId: string): void {
    this.#byCall.delete(callId);
  }
}
