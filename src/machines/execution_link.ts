/**
 * The execution link: the callback actor a `toolCall` keeps for its whole
 * life, standing for the call inside the executor. The toolCall tells it to
 * `start` (once any run prompt is settled) and, after the commit, to
 * `release`; the link reports back when the call settled (parked or ended
 * early) and what the caller received. The executor's handle lives here and
 * nowhere else.
 *
 * One long-lived link per call instead of a promise actor per step keeps the
 * number of actors per call low: a phase of 1,000 calls creates 2,000 actors,
 * not 3,000.
 *
 * @module
 */

import { type CallbackActorLogic, fromCallback } from "xstate";
import type { ToolCall } from "../review/tool_call.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import type {
  Acknowledgement,
  DeliveryOutcome,
  ExecutionHandle,
  ExecutionOutcome,
  Executor,
} from "../service/executor.ts";
import { reasonOf } from "./synthesized_reviews.ts";

/** Starts the call in the executor. Sent once. */
export interface StartExecutionCommand {
  /** The event type. */
  readonly type: "execution.start";
  /** The call as it is to run (its arguments may have been edited). */
  readonly call: ToolCall;
}

/** Releases the call with the commit's acknowledgement. Sent once. */
export interface ReleaseExecutionCommand {
  /** The event type. */
  readonly type: "execution.release";
  /** What the service is to deliver. */
  readonly ack: Acknowledgement;
  /** What was recorded; `undefined` when nothing was. */
  readonly recorded: ToolCallResponse | undefined;
}

/** What a link accepts. */
export type ExecutionCommand = StartExecutionCommand | ReleaseExecutionCommand;

/** The call settled: parked on its barrier, or ended early. */
export interface ExecutionSettledEvent {
  /** The event type. */
  readonly type: "execution.settled";
  /** How the execution ended before the Host saw a result. */
  readonly outcome: ExecutionOutcome;
}

/** The executor released the call. */
export interface ExecutionReleasedEvent {
  /** The event type. */
  readonly type: "execution.released";
  /** What the caller received, checked against what was recorded. */
  readonly delivery: DeliveryOutcome;
}

/** What a link reports to its toolCall. */
export type ExecutionReport = ExecutionSettledEvent | ExecutionReleasedEvent;

/** What a link is started with. */
export interface ExecutionLinkInput {
  /** Runs and releases the call. */
  readonly executor: Executor;
  /** Cancels the call. */
  readonly signal: AbortSignal;
}

/** What a call that never reached the executor "delivers": the runtime itself is its caller. */
function deliveryWithoutHandle(
  ack: Acknowledgement,
  recorded: ToolCallResponse | undefined,
): DeliveryOutcome {
  if (ack.kind === "fail") return { kind: "failed", message: ack.message };
  if (ack.kind === "replace" && recorded !== undefined) {
    return { kind: "delivered", response: recorded };
  }
  return { kind: "failed", message: "the call never reached the executor: nothing to deliver" };
}

async function settle(start: () => ExecutionHandle): Promise<{
  handle: ExecutionHandle | undefined;
  outcome: ExecutionOutcome;
}> {
  let handle: ExecutionHandle;
  try {
    handle = start();
  } catch (error) {
    return { handle: undefined, outcome: { kind: "failed", reason: reasonOf(error) } };
  }
  try {
    return { handle, outcome: await handle.outcome };
  } catch (error) {
    // The contract says `outcome` never rejects; a broken executor still ends in a slot.
    return { handle, outcome: { kind: "failed", reason: reasonOf(error) } };
  }
}

async function release(
  handle: ExecutionHandle | undefined,
  command: ReleaseExecutionCommand,
): Promise<DeliveryOutcome> {
  if (handle === undefined) return deliveryWithoutHandle(command.ack, command.recorded);
  try {
    return await handle.release(command.ack, command.recorded);
  } catch (error) {
    return { kind: "failed", message: `release failed: ${reasonOf(error)}` };
  }
}

/**
 * The link's logic. A release that arrives before the call settled waits
 * for it, so the executor always sees `start` → parked → `release`. A link
 * stopped between start and release (its toolCall was stopped: the turn was
 * stopped, or its phase failed) cancels the call and releases it with a
 * failure, so no call stays parked in the executor.
 */
export const executionLink: CallbackActorLogic<ExecutionCommand, ExecutionLinkInput> = fromCallback<
  ExecutionCommand,
  ExecutionLinkInput
>(
  ({ input, receive, sendBack }) => {
    let live = true;
    let callId: string | undefined;
    let releasing = false;
    let started: Promise<ExecutionHandle | undefined> = Promise.resolve(undefined);
    const abandon = new AbortController();
    receive((command) => {
      if (command.type === "execution.start") {
        callId = command.call.id;
        // Each call gets a signal of its own: executors listen on it, and adding
        // thousands of listeners to one shared AbortSignal costs O(n²).
        const signal = AbortSignal.any([input.signal, abandon.signal]);
        const settled = settle(() => input.executor.start(command.call, { signal }));
        started = settled.then(({ handle }) => handle);
        settled.then(({ outcome }) => {
          if (live) {
            sendBack({ type: "execution.settled", outcome } satisfies ExecutionSettledEvent);
          }
        });
      } else {
        releasing = true;
        started
          .then((handle) => release(handle, command))
          .then((delivery) => {
            if (live) {
              sendBack({ type: "execution.released", delivery } satisfies ExecutionReleasedEvent);
            }
          });
      }
    });
    return () => {
      live = false;
      if (callId === undefined || releasing) return;
      const message = abandonedMessage(callId);
      abandon.abort(new Error(message));
      started.then((handle) => handle?.release({ kind: "fail", message }, undefined)).catch(
        () => {},
      );
    };
  },
);

/** The failure a call is released with when its toolCall stopped before the commit released it. */
export function abandonedMessage(callId: string): string {
  return `the call ${callId} was abandoned before its result was recorded`;
}
