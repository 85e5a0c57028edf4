/**
 * The `commit` machine: turns a batch of settled, capped reviews into
 * recorded, durable, delivered responses.
 *
 * `merging` puts the batch in call order (calls answered without running
 * and executed ones alike); `spendingBudget` spends the 2 MiB batch ceiling
 * largest first; `recording` appends one `tool_call_response` per call;
 * `flushing` makes them durable, and only then are the batch's notices
 * reported (a notice says what was *sent*: nothing is, before it is
 * durable); `releasing` acknowledges every call through its execution link
 * and waits for what each caller received; then `done`. When recording or
 * flushing fails, `releasing` acknowledges every call with a failure instead
 * (never with content: flush before release), no notice is reported, and the
 * commit ends `failed`.
 *
 * @module
 */

import { assign, fromPromise, setup } from "xstate";
import { SpillwayError } from "../errors/spillway_error.ts";
import type { NoticeFact } from "../review/notice.ts";
import type { Review } from "../review/review.ts";
import { spendBatchBudget } from "../review/spend_batch_budget.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import type { Acknowledgement, DeliveryOutcome } from "../service/executor.ts";
import { reasonText } from "../errors/reason_text.ts";
import type { ConversationStream } from "../stream/stream_store.ts";
import { toolCallResponseEvent } from "../stream/tool_call_response_event.ts";
import type { CallRecord, IndexedDelivery } from "./call_record.ts";
import { reportNotice } from "./report_notice.ts";
import { acknowledgementOf, recordedResponse } from "./review_release.ts";
import { notRecordedMessage } from "./synthesized_reviews.ts";
import type { NoticeSink } from "./turn_dependencies.ts";

/** What a `commit` actor is started with. */
export interface CommitInput {
  /** The batch: every call with its (threshold-capped) review; calls with a link are released. */
  readonly records: readonly CallRecord[];
  /** The phase end's notices (cause `size_threshold`), reported with the batch's once it is durable. */
  readonly notices: readonly NoticeFact[];
  /** Where the responses are recorded. */
  readonly stream: ConversationStream;
  /** Prints the notices. */
  readonly noticeSink: NoticeSink;
}

/** What a `commit` actor ends with. */
export interface CommitOutput {
  /** `done` once recorded, flushed and released; `failed` when recording or flushing failed. */
  readonly status: "done" | "failed";
  /** The responses as recorded, in call order; empty when the commit failed. */
  readonly recorded: readonly ToolCallResponse[];
  /**
   * Every notice reported: the phase end's, then the batch ceiling's, each in
   * call order; empty when the commit failed (nothing was sent).
   */
  readonly notices: readonly NoticeFact[];
  /** What the caller of each call with a link received, in call order. */
  readonly deliveries: readonly IndexedDelivery[];
  /** Why the commit failed: `SpillwayError("not_recorded")`, its cause the store's error. */
  readonly error?: SpillwayError;
}

interface CommitContext {
  readonly input: CommitInput;
  /** The batch in call order. */
  readonly batch: readonly CallRecord[];
  /** The review of each call of `batch` after the batch ceiling, parallel to it. */
  readonly spent: readonly Review[];
  /** The batch ceiling's notices. */
  readonly ceilingNotices: readonly NoticeFact[];
  readonly recorded: readonly ToolCallResponse[];
  readonly notices: readonly NoticeFact[];
  readonly deliveries: readonly IndexedDelivery[];
  readonly error: SpillwayError | undefined;
}

/** What the commit tells each released call. */
interface Release {
  readonly record: CallRecord;
  readonly ack: Acknowledgement;
  readonly recorded: ToolCallResponse | undefined;
}

/** Releases every call with a link; resolves with what each caller received, in call order. */
async function releaseCalls(
  { input }: { input: { releases: readonly Release[] } },
): Promise<IndexedDelivery[]> {
  // Every call is released at once, and one wait covers them all (not an
  // async function per call).
  const { releases } = input;
  const outcomes = await Promise.all(
    releases.map(({ record, ack, recorded }) =>
      (record.link as NonNullable<CallRecord["link"]>).release(ack, recorded)
    ),
  );
  return releases.map(({ record }, i) => ({
    index: record.index,
    callId: record.call.id,
    delivery: outcomes[i] as DeliveryOutcome,
  }));
}

const commitSetup = setup({
  types: {
    input: {} as CommitInput,
    context: {} as CommitContext,
    output: {} as CommitOutput,
  },
  actors: {
    recordResponses: fromPromise<
      void,
      { stream: ConversationStream; responses: readonly ToolCallResponse[] }
    >(({ input }) => input.stream.append(input.responses.map(toolCallResponseEvent))),
    flushStream: fromPromise<void, { stream: ConversationStream }>(({ input }) =>
      input.stream.flush()
    ),
    releaseCalls: fromPromise(releaseCalls),
  },
  guards: {
    hasFailed: ({ context }) => context.error !== undefined,
  },
  actions: {
    mergeBatch: assign({
      batch: ({ context }) => [...context.input.records].sort((a, b) => a.index - b.index),
    }),
    spendBudget: assign(({ context }) => {
      const { reviews, notices } = spendBatchBudget(
        context.batch.map((record) => record.review as Review),
      );
      return {
        spent: reviews,
        ceilingNotices: notices,
        recorded: reviews.map(recordedResponse),
      };
    }),
    collectNotices: assign({
      notices: ({ context }) => [...context.input.notices, ...context.ceilingNotices],
    }),
    reportNotices: ({ context }) => {
      for (const fact of context.notices) reportNotice(context.input.noticeSink, fact);
    },
    failWith: assign(({ context }, params: { error: unknown }) => ({
      recorded: [],
      error: new SpillwayError(
        "not_recorded",
        `the results of this batch were not recorded: ${reasonText(params.error)}`,
        { callIds: context.batch.map((record) => record.call.id) },
        { cause: params.error },
      ),
    })),
    storeDeliveries: assign((_, deliveries: readonly IndexedDelivery[]) => ({ deliveries })),
  },
});

/** What each call with a link is released with: its recorded review, or the batch's failure. */
function releasesOf(context: CommitContext): Release[] {
  const failure = context.error === undefined ? undefined : reasonText(context.error.cause);
  const releases: Release[] = [];
  context.batch.forEach((record, i) => {
    if (record.link === undefined) return;
    const review = context.spent[i] as Review;
    releases.push(
      failure === undefined
        ? { record, ack: acknowledgementOf(review), recorded: context.recorded[i] }
        : {
          record,
          ack: { kind: "fail", message: notRecordedMessage(record.call.id, failure) },
          recorded: undefined,
        },
    );
  });
  return releases;
}

const machine = commitSetup.createMachine({
  id: "commit",
  initial: "merging",
  context: ({ input }) => ({
    input,
    batch: [],
    spent: [],
    ceilingNotices: [],
    recorded: [],
    notices: [],
    deliveries: [],
    error: undefined,
  }),
  states: {
    merging: {
      entry: "mergeBatch",
      always: { target: "spendingBudget" },
    },
    spendingBudget: {
      entry: "spendBudget",
      always: { target: "recording" },
    },
    recording: {
      invoke: {
        id: "recordResponses",
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
        id: "flushStream",
        src: "flushStream",
        input: ({ context }) => ({ stream: context.input.stream }),
        onDone: { target: "releasing", actions: ["collectNotices", "reportNotices"] },
        onError: {
          target: "releasing",
          actions: { type: "failWith", params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    releasing: {
      invoke: {
        id: "releaseCalls",
        src: "releaseCalls",
        input: ({ context }) => ({ releases: releasesOf(context) }),
        onDone: [
          {
            guard: "hasFailed",
            target: "failed",
            actions: { type: "storeDeliveries", params: ({ event }) => event.output },
          },
          {
            target: "done",
            actions: { type: "storeDeliveries", params: ({ event }) => event.output },
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
