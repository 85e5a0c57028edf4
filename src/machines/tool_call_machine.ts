/**
 * The `toolCall` machine: one tool call from start to release.
 *
 * `execute` starts the call in the executor through the call's execution
 * link (after asking, under `run = "ask"`/`"edit"`) and waits until it is
 * parked or ended early, `resultPrompt` lets a person settle the raw result
 * (`unattended` passes straight through), `reviewSlot` writes the review into
 * the phase's slot, `barrierAcknowledge` waits for the commit's
 * acknowledgement and hands it to the executor, and `released` holds what the
 * caller received. A lost, cancelled or failed call, or one that was never
 * run, goes from `execute`/`resultPrompt` straight to `reviewSlot` with a
 * synthesized review: every route writes a slot.
 *
 * The machine never caps: the phase caps all slots at once when they are all
 * written, and the commit decides what is acknowledged.
 *
 * @module
 */

import { assign, enqueueActions, fromPromise, sendTo, setup } from "xstate";
import { acceptedReview, type Review } from "../review/review.ts";
import type { ToolCall } from "../review/tool_call.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import type {
  Acknowledgement,
  DeliveryOutcome,
  ExecutionOutcome,
  Executor,
} from "../service/executor.ts";
import {
  executionLink,
  type ExecutionReleasedEvent,
  type ExecutionReport,
  type ExecutionSettledEvent,
} from "./execution_link.ts";
import type { Prompter } from "./prompter.ts";
import {
  cancelledReview,
  failedReview,
  lostReview,
  skippedCallReview,
  withheldResultReview,
} from "./synthesized_reviews.ts";
import { type Approval, approveRun, promptResult } from "./tool_call_prompts.ts";
import type { ToolPolicy } from "./turn_dependencies.ts";
import type { TurnObserver } from "./turn_observer.ts";
import { observe } from "./_observe.ts";

/** What a `toolCall` actor is started with. */
export interface ToolCallInput {
  /** The call's position in the assistant message. */
  readonly index: number;
  /** The call to run. */
  readonly call: ToolCall;
  /** The tool's policy (`run`, `result`, threshold, cancellation response). */
  readonly policy: ToolPolicy;
  /** Runs the call and releases it. */
  readonly executor: Executor;
  /** Asks a person under `ask`/`edit`. */
  readonly prompter: Prompter;
  /** Cancels the call. Defaults to a signal that never aborts. */
  readonly signal?: AbortSignal;
  /** Told when the call starts and when its slot is written. Default: nobody. */
  readonly observer?: TurnObserver;
}

/** What a `toolCall` actor ends with. */
export interface ToolCallOutput {
  /** The call's position in the assistant message. */
  readonly index: number;
  /** The call id. */
  readonly callId: string;
  /** What the caller received, checked against what was recorded. */
  readonly delivery: DeliveryOutcome;
}

/** The commit's acknowledgement, forwarded by the phase. */
export interface ReleaseEvent {
  /** The event type. */
  readonly type: "release";
  /** What the service is to deliver. */
  readonly ack: Acknowledgement;
  /** What was recorded; `undefined` when nothing was. */
  readonly recorded: ToolCallResponse | undefined;
}

/** Sent to the parent (and emitted) once the review is in its slot. */
export interface SlotWrittenEvent {
  /** The event type. */
  readonly type: "slot.written";
  /** The call's position in the assistant message. */
  readonly index: number;
  /** The call id. */
  readonly callId: string;
  /** The uncapped review: the phase end caps it. */
  readonly review: Review;
}

/**
 * Emitted once the executor released the call. The parent learns the same
 * facts from the actor's done event (its output).
 */
export interface CallReleasedEvent {
  /** The event type. */
  readonly type: "call.released";
  /** The call's position in the assistant message. */
  readonly index: number;
  /** The call id. */
  readonly callId: string;
  /** What the caller received, checked against what was recorded. */
  readonly delivery: DeliveryOutcome;
}

/** The events a `toolCall` actor emits to listeners. */
export type ToolCallNotification = SlotWrittenEvent | CallReleasedEvent;

interface ToolCallContext {
  readonly index: number;
  /** The call as run: its arguments may have been edited before running. */
  readonly call: ToolCall;
  readonly policy: ToolPolicy;
  readonly executor: Executor;
  readonly prompter: Prompter;
  readonly signal: AbortSignal;
  readonly observer: TurnObserver | undefined;
  /** The raw (uncapped) response the service parked. */
  readonly offered: ToolCallResponse | undefined;
  readonly review: Review | undefined;
  readonly ack: Acknowledgement | undefined;
  readonly recorded: ToolCallResponse | undefined;
  readonly delivery: DeliveryOutcome | undefined;
}

const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** The review a call gets when it ended before a result was parked. */
function reviewOfEarlyEnd(call: ToolCall, policy: ToolPolicy, outcome: ExecutionOutcome): Review {
  switch (outcome.kind) {
    case "lost":
      return lostReview(call, outcome.reason);
    case "cancelled":
      return cancelledReview(call, policy.cancellationResponse);
    case "failed":
      return failedReview(call, outcome.reason);
    case "executed":
      return acceptedReview(call.name, outcome.response);
  }
}

const toolCallSetup = setup({
  types: {
    input: {} as ToolCallInput,
    context: {} as ToolCallContext,
    events: {} as ReleaseEvent | ExecutionReport,
    emitted: {} as ToolCallNotification,
    output: {} as ToolCallOutput,
  },
  actors: {
    /** `run = "ask"`/`"edit"`: asks whether (and with what arguments) to run. */
    approveRun: fromPromise(approveRun),
    /** The call inside the executor, from start to release. */
    execution: executionLink,
    /** `result = "ask"`/`"edit"`: the person settles the raw result. */
    promptResult: fromPromise(promptResult),
  },
  guards: {
    runIsSkipped: ({ context }) => context.policy.run === "skip",
    runNeedsApproval: ({ context }) =>
      context.policy.run === "ask" || context.policy.run === "edit",
    approvalEndedCall: (_, approval: Approval) => "review" in approval,
    wasParked: (_, settled: ExecutionSettledEvent) => settled.outcome.kind === "executed",
    resultIsUnattended: ({ context }) => context.policy.result === "unattended",
    resultIsWithheld: ({ context }) => context.policy.result === "skip",
  },
  actions: {
    skipCall: assign({ review: ({ context }) => skippedCallReview(context.call) }),
    storeApproval: assign((_, approval: Approval) =>
      "review" in approval ? { review: approval.review } : { call: approval.call }
    ),
    tellStarted: ({ context }) => {
      observe(context.observer, (observer) => observer.toolCallStarted?.(context.call));
    },
    startExecution: sendTo("execution", ({ context }) => ({
      type: "execution.start" as const,
      call: context.call,
    })),
    storeOffered: assign((_, settled: ExecutionSettledEvent) => ({
      offered: settled.outcome.kind === "executed" ? settled.outcome.response : undefined,
    })),
    settleEarlyEnd: assign(({ context }, settled: ExecutionSettledEvent) => ({
      review: reviewOfEarlyEnd(context.call, context.policy, settled.outcome),
    })),
    acceptOffered: assign({
      review: ({ context }) =>
        context.offered === undefined
          ? undefined
          : acceptedReview(context.call.name, context.offered),
    }),
    withholdResult: assign({ review: ({ context }) => withheldResultReview(context.call) }),
    settleReview: assign((_, review: Review) => ({ review })),
    tellResult: ({ context }) => {
      const review = context.review;
      if (review === undefined) return;
      // The observer (the terminal) gets the uncapped response: the cap is a delivery limit.
      observe(
        context.observer,
        (observer) => observer.toolCallResult?.(context.call, review.response),
      );
    },
    writeSlot: enqueueActions(({ context, enqueue, self }) => {
      const review = context.review;
      if (review === undefined) return;
      const event: SlotWrittenEvent = {
        type: "slot.written",
        index: context.index,
        callId: context.call.id,
        review,
      };
      enqueue.emit(event);
      // A standalone toolCall (tests, inspection) has no phase to tell.
      if (self._parent) enqueue.sendParent(event);
    }),
    storeAcknowledgement: assign((_, release: ReleaseEvent) => ({
      ack: release.ack,
      recorded: release.recorded,
    })),
    releaseExecution: sendTo("execution", ({ context }) => ({
      type: "execution.release" as const,
      ack: context.ack ?? { kind: "fail" as const, message: "no acknowledgement" },
      recorded: context.recorded,
    })),
    storeDelivery: assign((_, released: ExecutionReleasedEvent) => ({
      delivery: released.delivery,
    })),
    reportReleased: enqueueActions(({ context, enqueue }) => {
      if (context.delivery === undefined) return;
      const event: CallReleasedEvent = {
        type: "call.released",
        index: context.index,
        callId: context.call.id,
        delivery: context.delivery,
      };
      // The parent learns it from the done event, which carries the same facts.
      enqueue.emit(event);
    }),
  },
});

const machine = toolCallSetup.createMachine({
  id: "toolCall",
  initial: "execute",
  // Lives from the start of the call to its release, as the call does in the executor.
  invoke: {
    id: "execution",
    src: "execution",
    input: ({ context }) => ({ executor: context.executor, signal: context.signal }),
  },
  context: ({ input }) => ({
    index: input.index,
    call: input.call,
    policy: input.policy,
    executor: input.executor,
    prompter: input.prompter,
    signal: input.signal ?? NEVER_ABORTED,
    observer: input.observer,
    offered: undefined,
    review: undefined,
    ack: undefined,
    recorded: undefined,
    delivery: undefined,
  }),
  states: {
    execute: {
      initial: "deciding",
      states: {
        deciding: {
          always: [
            { guard: "runIsSkipped", target: "#toolCall.reviewSlot", actions: "skipCall" },
            { guard: "runNeedsApproval", target: "approving" },
            { target: "running" },
          ],
        },
        approving: {
          invoke: {
            src: "approveRun",
            input: ({ context }) => ({
              call: context.call,
              mode: context.policy.run === "edit" ? "edit" as const : "ask" as const,
              policy: context.policy,
              prompter: context.prompter,
              signal: context.signal,
            }),
            onDone: [
              {
                guard: { type: "approvalEndedCall", params: ({ event }) => event.output },
                target: "#toolCall.reviewSlot",
                actions: { type: "storeApproval", params: ({ event }) => event.output },
              },
              {
                target: "running",
                actions: { type: "storeApproval", params: ({ event }) => event.output },
              },
            ],
          },
        },
        running: {
          entry: ["tellStarted", "startExecution"],
          on: {
            "execution.settled": [
              {
                guard: { type: "wasParked", params: ({ event }) => event },
                target: "#toolCall.resultPrompt",
                actions: { type: "storeOffered", params: ({ event }) => event },
              },
              {
                target: "#toolCall.reviewSlot",
                actions: { type: "settleEarlyEnd", params: ({ event }) => event },
              },
            ],
          },
        },
      },
    },
    resultPrompt: {
      initial: "choosing",
      states: {
        choosing: {
          always: [
            {
              guard: "resultIsUnattended",
              target: "#toolCall.reviewSlot",
              actions: "acceptOffered",
            },
            {
              guard: "resultIsWithheld",
              target: "#toolCall.reviewSlot",
              actions: "withholdResult",
            },
            { target: "prompting" },
          ],
        },
        prompting: {
          invoke: {
            src: "promptResult",
            input: ({ context }) => ({
              call: context.call,
              // Entered only from `execute.running` with a parked response.
              offered: context.offered ?? { id: context.call.id, content: "", isError: false },
              mode: context.policy.result === "edit" ? "edit" as const : "ask" as const,
              policy: context.policy,
              prompter: context.prompter,
              signal: context.signal,
            }),
            onDone: {
              target: "#toolCall.reviewSlot",
              actions: { type: "settleReview", params: ({ event }) => event.output },
            },
          },
        },
      },
    },
    reviewSlot: {
      entry: ["tellResult", "writeSlot"],
      always: { target: "barrierAcknowledge" },
    },
    barrierAcknowledge: {
      initial: "waiting",
      states: {
        waiting: {
          on: {
            release: {
              target: "delivering",
              actions: { type: "storeAcknowledgement", params: ({ event }) => event },
            },
          },
        },
        delivering: {
          entry: "releaseExecution",
          on: {
            "execution.released": {
              target: "#toolCall.released",
              actions: { type: "storeDelivery", params: ({ event }) => event },
            },
          },
        },
      },
    },
    released: {
      type: "final",
      entry: "reportReleased",
    },
  },
  output: ({ context }) => ({
    index: context.index,
    callId: context.call.id,
    delivery: context.delivery ?? { kind: "failed", message: "the call was not released" },
  }),
});

/** The type of {@linkcode toolCallMachine}. */
export type ToolCallMachine = typeof machine;

/**
 * The `toolCall` machine (states `execute` → `resultPrompt` → `reviewSlot` →
 * `barrierAcknowledge` → `released`). Spawned by a phase's call group, one per
 * call: it sends its parent `slot.written`, and its output (the delivery)
 * arrives as its done event. Listeners of a standalone actor get
 * `slot.written` and `call.released` as emitted events.
 */
export const toolCallMachine: ToolCallMachine = machine;
