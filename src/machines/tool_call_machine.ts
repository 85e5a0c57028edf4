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

import { assign, emit, fromPromise, setup } from "xstate";
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
  ExecutionLink,
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
import type { SlotBoard } from "./slot_board.ts";

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
  /**
   * The call group's slots, where the review is written. Default: none (a
   * standalone call only emits `slot.written`).
   */
  readonly slots?: SlotBoard;
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

/** Emitted once the review is in its slot (a call group's calls write it to the group's board). */
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

/**
 * What changes is kept apart from what the call was started with: XState
 * copies the whole context on every `assign`, so a small context keeps the
 * per-call copies cheap.
 */
interface ToolCallContext {
  /** What the call was started with (index, policy, prompter, signal, observer, slots). */
  readonly input: ToolCallInput;
  /** The call as run: its arguments may have been edited before running. */
  readonly call: ToolCall;
  /** The call inside the executor; lives as long as the actor. */
  readonly link: ExecutionLink;
  /** The raw (uncapped) response the service parked. */
  readonly offered: ToolCallResponse | undefined;
  readonly review: Review | undefined;
  readonly delivery: DeliveryOutcome | undefined;
}

const NEVER_ABORTED: AbortSignal = new AbortController().signal;

function signalOf(input: ToolCallInput): AbortSignal {
  return input.signal ?? NEVER_ABORTED;
}

/** The review that goes into the slot: every route into `reviewSlot` settles it first. */
function settledReview(context: ToolCallContext): Review {
  if (context.review === undefined) {
    throw new TypeError(`call ${context.call.id} reached its slot without a review`);
  }
  return context.review;
}

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
    /** `result = "ask"`/`"edit"`: the person settles the raw result. */
    promptResult: fromPromise(promptResult),
  },
  guards: {
    runIsSkipped: ({ context }) => context.input.policy.run === "skip",
    runNeedsApproval: ({ context }) =>
      context.input.policy.run === "ask" || context.input.policy.run === "edit",
    approvalEndedCall: (_, approval: Approval) => "review" in approval,
    wasParked: (_, settled: ExecutionSettledEvent) => settled.outcome.kind === "executed",
    resultIsUnattended: ({ context }) => context.input.policy.result === "unattended",
    resultIsWithheld: ({ context }) => context.input.policy.result === "skip",
  },
  actions: {
    skipCall: assign({ review: ({ context }) => skippedCallReview(context.call) }),
    storeApproval: assign((_, approval: Approval) =>
      "review" in approval ? { review: approval.review } : { call: approval.call }
    ),
    tellStarted: ({ context }) => {
      observe(context.input.observer, (observer) => observer.toolCallStarted?.(context.call));
    },
    bindExecutionLink: ({ context, self }) => context.link.bind(self),
    startExecution: ({ context }) => context.link.start(context.call),
    storeOffered: assign((_, settled: ExecutionSettledEvent) => ({
      offered: settled.outcome.kind === "executed" ? settled.outcome.response : undefined,
    })),
    settleEarlyEnd: assign(({ context }, settled: ExecutionSettledEvent) => ({
      review: reviewOfEarlyEnd(context.call, context.input.policy, settled.outcome),
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
        context.input.observer,
        (observer) => observer.toolCallResult?.(context.call, review.response),
      );
    },
    // The unattended variant accepts the parked response as soon as it arrives.
    acceptParked: assign(({ context }, settled: ExecutionSettledEvent) => {
      const offered = settled.outcome.kind === "executed" ? settled.outcome.response : undefined;
      return {
        offered,
        review: offered === undefined ? undefined : acceptedReview(context.call.name, offered),
      };
    }),
    writeSlot: ({ context }) =>
      context.input.slots?.write(context.input.index, settledReview(context)),
    announceSlot: emit(({ context }): SlotWrittenEvent => ({
      type: "slot.written",
      index: context.input.index,
      callId: context.call.id,
      review: settledReview(context),
    })),
    // Straight from the `release` event: keeping the acknowledgement in
    // context would cost a snapshot copy per call.
    releaseExecution: ({ context }, release: ReleaseEvent) =>
      context.link.release(release.ack, release.recorded),
    storeDelivery: assign((_, released: ExecutionReleasedEvent) => ({
      delivery: released.delivery,
    })),
    // The parent learns it from the done event, which carries the same facts.
    reportReleased: emit(({ context }): CallReleasedEvent => ({
      type: "call.released",
      index: context.input.index,
      callId: context.call.id,
      delivery: context.delivery ?? { kind: "failed", message: "the call was not released" },
    })),
  },
});

/** Both variants start from the input alone. */
function initialContext({ input }: { input: ToolCallInput }): ToolCallContext {
  return {
    input,
    call: input.call,
    link: new ExecutionLink(input.executor, signalOf(input)),
    offered: undefined,
    review: undefined,
    delivery: undefined,
  };
}

/** What the parent gets in the done event. */
function outputOf({ context }: { context: ToolCallContext }): ToolCallOutput {
  return {
    index: context.input.index,
    callId: context.call.id,
    delivery: context.delivery ?? { kind: "failed", message: "the call was not released" },
  };
}

/** Shared by both variants: what the caller received. */
const released = toolCallSetup.createStateConfig({
  type: "final",
  entry: "reportReleased",
});

const machine = toolCallSetup.createMachine({
  id: "toolCall",
  initial: "execute",
  // The link lives from here to the end of the actor, as the call does in the executor.
  entry: "bindExecutionLink",
  context: initialContext,
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
              mode: context.input.policy.run === "edit" ? "edit" as const : "ask" as const,
              policy: context.input.policy,
              prompter: context.input.prompter,
              signal: signalOf(context.input),
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
              mode: context.input.policy.result === "edit" ? "edit" as const : "ask" as const,
              policy: context.input.policy,
              prompter: context.input.prompter,
              signal: signalOf(context.input),
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
      entry: ["tellResult", "writeSlot", "announceSlot"],
      always: { target: "barrierAcknowledge" },
    },
    barrierAcknowledge: {
      initial: "waiting",
      states: {
        waiting: {
          on: {
            release: {
              target: "delivering",
              actions: { type: "releaseExecution", params: ({ event }) => event },
            },
          },
        },
        delivering: {
          on: {
            "execution.released": {
              target: "#toolCall.released",
              actions: { type: "storeDelivery", params: ({ event }) => event },
            },
          },
        },
      },
    },
    released,
  },
  output: outputOf,
});

/**
 * The same machine for a call nobody is asked about (`run = "unattended"`,
 * `result = "unattended"` or `"skip"`, as for most calls of a large batch):
 * the same top-level states, events and output, without what only a person
 * needs: no substates at all (`barrierAcknowledge` handles `release` and
 * `execution.released` itself instead of through `waiting` → `delivering`),
 * and the parked response is accepted as the review when it arrives.
 * XState's cost grows with every microstep, every `assign` (a snapshot copy)
 * and every level of nesting it walks; flat states took about a fifth off a
 * 1,000-call phase.
 */
const unattendedMachine = toolCallSetup.createMachine({
  id: "toolCall",
  initial: "execute",
  entry: "bindExecutionLink",
  context: initialContext,
  states: {
    execute: {
      entry: ["tellStarted", "startExecution"],
      on: {
        "execution.settled": [
          {
            guard: { type: "wasParked", params: ({ event }) => event },
            target: "#toolCall.resultPrompt",
            actions: { type: "acceptParked", params: ({ event }) => event },
          },
          {
            target: "#toolCall.reviewSlot",
            actions: { type: "settleEarlyEnd", params: ({ event }) => event },
          },
        ],
      },
    },
    resultPrompt: {
      always: [
        { guard: "resultIsWithheld", target: "#toolCall.reviewSlot", actions: "withholdResult" },
        { target: "#toolCall.reviewSlot" },
      ],
    },
    reviewSlot: {
      entry: ["tellResult", "writeSlot", "announceSlot"],
      always: { target: "barrierAcknowledge" },
    },
    barrierAcknowledge: {
      on: {
        // The first release counts; the link ignores any later one.
        release: { actions: { type: "releaseExecution", params: ({ event }) => event } },
        "execution.released": {
          target: "#toolCall.released",
          actions: { type: "storeDelivery", params: ({ event }) => event },
        },
      },
    },
    released,
  },
  output: outputOf,
});

/** The type of {@linkcode toolCallMachine}. */
export type ToolCallMachine = typeof machine;

/**
 * The `toolCall` machine (states `execute` → `resultPrompt` → `reviewSlot` →
 * `barrierAcknowledge` → `released`). Spawned by a phase's call group, one per
 * call: it writes its review to the group's slot board, and its output (the
 * delivery) arrives as its done event. Listeners get `slot.written` and
 * `call.released` as emitted events.
 */
export const toolCallMachine: ToolCallMachine = machine;

/**
 * Whether nobody is asked about a call under `policy`, so that the
 * {@linkcode unattendedToolCallMachine} can run it.
 */
export function isUnattended(policy: ToolPolicy): boolean {
  return policy.run === "unattended" &&
    (policy.result === "unattended" || policy.result === "skip");
}

/** The type of {@linkcode unattendedToolCallMachine}. */
export type UnattendedToolCallMachine = typeof unattendedMachine;

/**
 * The `toolCall` machine for calls nobody is asked about (see
 * {@linkcode isUnattended}): the same top-level states, events and outputs
 * as {@linkcode toolCallMachine}, without its prompt substates. The call
 * group spawns it for such calls; `spillway inspect` shows the complete one.
 */
export const unattendedToolCallMachine: UnattendedToolCallMachine = unattendedMachine;
