/**
 * The `toolCall` machine: one call a person is asked about, from start to
 * release.
 *
 * `execute` runs the call through its execution link (after asking, under
 * `run = "ask"`/`"edit"`) and waits until it is parked or ended early;
 * `resultPrompt` lets a person settle the raw result (`result = "ask"`:
 * deliver / edit / skip; `"edit"`: the editor; `"unattended"` and `"skip"`
 * pass straight through); `reviewSlot` writes the review into the phase's
 * slot (`slot.written` to the phase); `barrierAcknowledge` waits until the
 * commit has released the call; `released` holds what the caller received.
 * A call that is lost, cancelled or failed, or one that is never run, goes
 * from `execute` or `resultPrompt` straight to `reviewSlot` with a review the
 * Host writes itself: every route writes a slot.
 *
 * The phase runs one for every call with `ask` or `edit` in its policy.
 * Calls nobody is asked about take the same route without an actor: the
 * phase drives their execution links itself (see `phase_machine.ts`).
 *
 * The machine never caps: the phase caps all slots at once when they are all
 * written, and the commit decides what is delivered.
 *
 * @module
 */

import { assign, fromPromise, sendParent, setup } from "xstate";
import { acceptedReview, type Review } from "../review/review.ts";
import type { ToolCall } from "../review/tool_call.ts";
import type { DeliveryOutcome, ExecutionOutcome } from "../service/executor.ts";
import type { ExecutionLink } from "./execution_link.ts";
import type { IndexedReview } from "./call_record.ts";
import type { Prompter } from "./prompter.ts";
import {
  reviewOfEarlyEnd,
  skippedCallReview,
  withheldResultReview,
} from "./synthesized_reviews.ts";
import { type Approval, approveRun, promptResult } from "./tool_call_prompts.ts";
import type { ToolPolicy } from "./turn_dependencies.ts";
import type { TurnObserver } from "./turn_observer.ts";
import { observe } from "./_observe.ts";

/** What a `toolCall` actor is started with. */
export interface ToolCallInput {
  /** The call's position in the batch. */
  readonly index: number;
  /** The call to run. */
  readonly call: ToolCall;
  /** The tool's policy (`run`, `result`, cancellation response). */
  readonly policy: ToolPolicy;
  /** The call inside the executor: started here, released by the commit. Its signal cancels the prompts too. */
  readonly link: ExecutionLink;
  /** Asks a person under `ask`/`edit`. */
  readonly prompter: Prompter;
  /** Told when the call starts and when its slot is written. Default: nobody. */
  readonly observer?: TurnObserver;
}

/** What a `toolCall` actor ends with. */
export interface ToolCallOutput {
  /** The call's position in the batch. */
  readonly index: number;
  /** The call id. */
  readonly callId: string;
  /** What the caller received, checked against what was recorded. */
  readonly delivery: DeliveryOutcome;
}

/** Sent to the phase (the parent) once the review is in the call's slot. */
export interface SlotWrittenEvent extends IndexedReview {
  /** The event type. */
  readonly type: "slot.written";
}

interface ToolCallContext {
  readonly input: ToolCallInput;
  /** The call as run: its arguments may have been edited before running. */
  readonly call: ToolCall;
  /** The raw (uncapped) response the service parked. */
  readonly offered: ExecutionOutcome | undefined;
  readonly review: Review | undefined;
  readonly delivery: DeliveryOutcome | undefined;
}

/** The review that goes into the slot: every route into `reviewSlot` settles it first. */
function settledReview(context: ToolCallContext): Review {
  if (context.review === undefined) {
    throw new TypeError(`call ${context.call.id} reached its slot without a review`);
  }
  return context.review;
}

/** The parked response; `resultPrompt` is entered only with one. */
function offeredResponse(context: ToolCallContext) {
  const offered = context.offered;
  if (offered?.kind !== "executed") {
    throw new TypeError(`call ${context.call.id} reached its result prompt without a result`);
  }
  return offered.response;
}

const toolCallSetup = setup({
  types: {
    input: {} as ToolCallInput,
    context: {} as ToolCallContext,
    output: {} as ToolCallOutput,
  },
  actors: {
    /** `run = "ask"`/`"edit"`: asks whether (and with what arguments) to run. */
    approveRun: fromPromise(approveRun),
    /** Starts the call and settles once it is parked or ended early. */
    runCall: fromPromise<ExecutionOutcome, { link: ExecutionLink; call: ToolCall }>(
      ({ input }) => input.link.start(input.call),
    ),
    /** `result = "ask"`/`"edit"`: the person settles the raw result. */
    promptResult: fromPromise(promptResult),
    /** Settles once the commit has released the call, with what its caller received. */
    awaitRelease: fromPromise<DeliveryOutcome, { link: ExecutionLink }>(
      ({ input }) => input.link.delivered,
    ),
  },
  guards: {
    runIsSkipped: ({ context }) => context.input.policy.run === "skip",
    runNeedsApproval: ({ context }) =>
      context.input.policy.run === "ask" || context.input.policy.run === "edit",
    approvalEndedCall: (_, approval: Approval) => "review" in approval,
    wasParked: (_, outcome: ExecutionOutcome) => outcome.kind === "executed",
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
    storeOffered: assign((_, offered: ExecutionOutcome) => ({ offered })),
    settleEarlyEnd: assign(({ context }, outcome: ExecutionOutcome) => ({
      review: reviewOfEarlyEnd(context.call, context.input.policy, outcome),
    })),
    acceptOffered: assign({
      review: ({ context }) => acceptedReview(context.call.name, offeredResponse(context)),
    }),
    withholdResult: assign({ review: ({ context }) => withheldResultReview(context.call) }),
    settleReview: assign((_, review: Review) => ({ review })),
    tellResult: ({ context }) => {
      const review = settledReview(context);
      // The observer (the terminal) gets the uncapped response: the cap is a delivery limit.
      observe(
        context.input.observer,
        (observer) => observer.toolCallResult?.(context.call, review.response),
      );
    },
    writeSlot: sendParent(({ context }): SlotWrittenEvent => ({
      type: "slot.written",
      index: context.input.index,
      review: settledReview(context),
    })),
    storeDelivery: assign((_, delivery: DeliveryOutcome) => ({ delivery })),
  },
});

const machine = toolCallSetup.createMachine({
  id: "toolCall",
  initial: "execute",
  context: ({ input }) => ({
    input,
    call: input.call,
    offered: undefined,
    review: undefined,
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
            id: "approveRun",
            src: "approveRun",
            input: ({ context }) => ({
              call: context.call,
              mode: context.input.policy.run === "edit" ? "edit" as const : "ask" as const,
              policy: context.input.policy,
              prompter: context.input.prompter,
              signal: context.input.link.signal,
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
          entry: "tellStarted",
          invoke: {
            id: "runCall",
            src: "runCall",
            input: ({ context }) => ({ link: context.input.link, call: context.call }),
            onDone: [
              {
                guard: { type: "wasParked", params: ({ event }) => event.output },
                target: "#toolCall.resultPrompt",
                actions: { type: "storeOffered", params: ({ event }) => event.output },
              },
              {
                target: "#toolCall.reviewSlot",
                actions: { type: "settleEarlyEnd", params: ({ event }) => event.output },
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
            id: "promptResult",
            src: "promptResult",
            input: ({ context }) => ({
              call: context.call,
              offered: offeredResponse(context),
              mode: context.input.policy.result === "edit" ? "edit" as const : "ask" as const,
              policy: context.input.policy,
              prompter: context.input.prompter,
              signal: context.input.link.signal,
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
      invoke: {
        id: "awaitRelease",
        src: "awaitRelease",
        input: ({ context }) => ({ link: context.input.link }),
        onDone: {
          target: "released",
          actions: { type: "storeDelivery", params: ({ event }) => event.output },
        },
      },
    },
    released: { type: "final" },
  },
  output: ({ context }) => ({
    index: context.input.index,
    callId: context.call.id,
    delivery: context.delivery ?? { kind: "failed", message: "the call was not released" },
  }),
});

/** The type of {@linkcode toolCallMachine}. */
export type ToolCallMachine = typeof machine;

/**
 * The `toolCall` machine (states `execute` → `resultPrompt` → `reviewSlot` →
 * `barrierAcknowledge` → `released`). The phase spawns one per call a person
 * is asked about; it tells the phase `slot.written`, and its output (the
 * delivery) arrives as its done event.
 */
export const toolCallMachine: ToolCallMachine = machine;
