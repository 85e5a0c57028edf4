/**
 * The `commit` machine: turns a batch of settled reviews into recorded,
 * durable, delivered responses.
 *
 * `merging` puts executed and pre-resolved reviews back in call-index order;
 * `spendingBudget` spends the 2 MiB batch ceiling largest first (one notice
 * per cut); `recording` appends one `tool_call_response` event per call;
 * `flushing` makes them durable; `releasing` acknowledges every parked call
 * to the phase and waits for the deliveries; then `done`. When recording or
 * flushing fails, `releasing` acknowledges every parked call with a failure
 * instead (never with content: flush before release) and the commit ends
 * `failed`.
 *
 * @module
 */

import { and, type AnyActorRef, assign, enqueueActions, fromPromise, setup } from "xstate";
import { SpillwayError } from "../errors/spillway_error.ts";
import type { NoticeFact } from "../review/notice.ts";
import type { Review } from "../review/review.ts";
import { spendBatchBudget } from "../review/spend_batch_budget.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import type { Acknowledgement } from "../service/executor.ts";
import type { ToolCallResponseEvent } from "../stream/events.ts";
import type { ConversationStream } from "../stream/stream_store.ts";
import type { IndexedAcknowledgement, IndexedDelivery, IndexedReview } from "./indexed_call.ts";
import type { PhaseReleasedEvent, PhaseReleaseEvent } from "./phase_machine.ts";
import { reportNotice } from "./report_notice.ts";
import { reasonText } from "../service/reason_text.ts";
import { notRecordedMessage } from "./synthesized_reviews.ts";
import type { NoticeSink } from "./turn_dependencies.ts";

/** What a `commit` actor is started with. */
export interface CommitInput {
  /** The phase end's capped reviews of executed (parked) calls. */
  readonly executed: readonly IndexedReview[];
  /** Reviews of calls that were never executed: skipped, unavailable, cancelled, repeated. */
  readonly preResolved: readonly IndexedReview[];
  /** Where the responses are recorded. */
  readonly stream: ConversationStream;
  /** Prints the batch-ceiling notices. */
  readonly noticeSink: NoticeSink;
  /**
   * The phase holding the parked calls of `executed`: it gets `release` and
   * answers `phase.released`. Without it nothing is released (and
   * `deliveries` is empty).
   */
  readonly phase?: AnyActorRef;
}

/** What a `commit` actor ends with. */
export interface CommitOutput {
  /** `done` once recorded, flushed and released; `failed` when recording or flushing failed. */
  readonly status: "done" | "failed";
  /** The responses as recorded, in call-index order; empty when the commit failed. */
  readonly recorded: readonly ToolCallResponse[];
  /** One notice per response the batch ceiling cut, in call order. */
  readonly notices: readonly NoticeFact[];
  /** What each parked call's caller received, in call-index order. */
  readonly deliveries: readonly IndexedDelivery[];
  /** Why the commit failed: `SpillwayError("not_recorded")`, its cause the store's error. */
  readonly error?: SpillwayError;
}

interface CommitContext {
  readonly input: CommitInput;
  readonly parked: ReadonlySet<number>;
  readonly merged: readonly IndexedReview[];
  readonly spent: readonly IndexedReview[];
  readonly notices: readonly NoticeFact[];
  readonly recorded: readonly ToolCallResponse[];
  readonly deliveries: readonly IndexedDelivery[];
  readonly error: SpillwayError | undefined;
}

/** The acknowledgement a recorded review gets: the service's own result only when accepted. */
function acknowledgementOf(review: Review): Acknowledgement {
  if (review.status === "accepted") return { kind: "deliver" };
  return { kind: "replace", content: review.response.content, isError: review.response.isError };
}

/** The response as the stream holds it (non-text content is not recorded). */
function recordedResponse(review: Review): ToolCallResponse {
  const { id, content, isError } = review.response;
  return { id, content, isError };
}

function responseEvent(response: ToolCallResponse): ToolCallResponseEvent {
  return {
    type: "tool_call_response",
    id: response.id,
    content: response.content,
    is_error: response.isError,
  };
}

const commitSetup = setup({
  types: {
    input: {} as CommitInput,
    context: {} as CommitContext,
    events: {} as PhaseReleasedEvent,
    output: {} as CommitOutput,
  },
  actors: {
    recordResponses: fromPromise<
      void,
      { stream: ConversationStream; responses: readonly ToolCallResponse[] }
    >(({ input }) => input.stream.append(input.responses.map(responseEvent))),
    flushStream: fromPromise<void, { stream: ConversationStream }>(({ input }) =>
      input.stream.flush()
    ),
  },
  guards: {
    hasFailed: ({ context }) => context.error !== undefined,
    nothingParked: ({ context }) => context.input.phase === undefined || context.parked.size === 0,
  },
  actions: {
    mergeReviews: assign({
      merged: ({ context }) =>
        [...context.input.executed, ...context.input.preResolved].sort((a, b) => a.index - b.index),
    }),
    spendBudget: assign(({ context }) => {
      const { reviews, notices } = spendBatchBudget(context.merged.map(({ review }) => review));
      const spent = context.merged.map(({ index }, i) => ({
        index,
        review: reviews[i] as Review,
      }));
      return { spent, notices, recorded: spent.map(({ review }) => recordedResponse(review)) };
    }),
    reportBudgetNotices: ({ context }) => {
      for (const fact of context.notices) reportNotice(context.input.noticeSink, fact);
    },
    failWith: assign(({ context }, params: { error: unknown }) => {
      const reason = reasonText(params.error);
      return {
        recorded: [],
        error: new SpillwayError(
          "not_recorded",
          `the results of this batch were not recorded: ${reason}`,
          { callIds: context.spent.map(({ review }) => review.response.id) },
          { cause: params.error },
        ),
      };
    }),
    sendAcknowledgements: enqueueActions(({ context, enqueue, self }) => {
      const phase = context.input.phase;
      if (phase === undefined || context.parked.size === 0) return;
      const failure = context.error === undefined ? undefined : reasonText(context.error.cause);
      const acks: IndexedAcknowledgement[] = [];
      for (const { index, review } of context.spent) {
        if (!context.parked.has(index)) continue;
        const callId = review.response.id;
        acks.push(
          failure === undefined
            ? { index, callId, ack: acknowledgementOf(review), recorded: recordedResponse(review) }
            : {
              index,
              callId,
              ack: { kind: "fail", message: notRecordedMessage(callId, failure) },
              recorded: undefined,
            },
        );
      }
      const event: PhaseReleaseEvent = { type: "release", acks, replyTo: self };
      enqueue.sendTo(phase, event);
    }),
    storeDeliveries: assign((_, released: PhaseReleasedEvent) => ({
      deliveries: released.deliveries,
    })),
  },
});

const machine = commitSetup.createMachine({
  id: "commit",
  initial: "merging",
  context: ({ input }) => ({
    input,
    parked: new Set(input.executed.map(({ index }) => index)),
    merged: [],
    spent: [],
    notices: [],
    recorded: [],
    deliveries: [],
    error: undefined,
  }),
  states: {
    merging: {
      entry: "mergeReviews",
      always: { target: "spendingBudget" },
    },
    spendingBudget: {
      entry: ["spendBudget", "reportBudgetNotices"],
      always: { target: "recording" },
    },
    recording: {
      invoke: {
        src: "recordResponses",
        input: ({ context }) => ({ stream: context.input.stream, responses: context.recorded }),
        onDone: { target: "flushing" },
        onError: {
          target: "releasing",
          actions: { type: "failWith", params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    flushing: {
      invoke: {
        src: "flushStream",
        input: ({ context }) => ({ stream: context.input.stream }),
        onDone: { target: "releasing" },
        onError: {
          target: "releasing",
          actions: { type: "failWith", params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    releasing: {
      entry: "sendAcknowledgements",
      always: [
        { guard: and(["nothingParked", "hasFailed"]), target: "failed" },
        { guard: "nothingParked", target: "done" },
      ],
      on: {
        "phase.released": [
          {
            guard: "hasFailed",
            target: "failed",
            actions: { type: "storeDeliveries", params: ({ event }) => event },
          },
          {
            target: "done",
            actions: { type: "storeDeliveries", params: ({ event }) => event },
          },
        ],
      },
    },
    done: { type: "final" },
    failed: { type: "final" },
  },
  output: ({ context }) => ({
    status: context.error === undefined ? "done" as const : "failed" as const,
    recorded: context.recorded,
    notices: context.notices,
    deliveries: context.deliveries,
    ...(context.error === undefined ? {} : { error: context.error }),
  }),
});

/** The type of {@linkcode commitMachine}. */
export type CommitMachine = typeof machine;

/**
 * The `commit` machine (states `merging` → `spendingBudget` → `recording` →
 * `flushing` → `releasing` → `done`, or `failed`).
 */
export const commitMachine: CommitMachine = machine;
