/**
 * A gateway phase nobody is asked about, run as plain code instead of a
 * `phase` and a `commit` actor. A client's calls have all run and parked
 * when their phase starts, so what is left is the phase end (slots, each
 * tool's threshold) and the commit (the batch ceiling, record, flush,
 * notices, release): straight-line work, which the actors (eight of them
 * per phase: the phase, its supervisor, its calls, its cap, the commit and
 * its record, flush and release) made cost about fifteen times what the
 * work itself does. A gateway client's calls are often one phase each, so
 * that was the largest part of the gateway's own time per call.
 *
 * The decisions are the machines' own functions ({@linkcode triageCalls},
 * {@linkcode capSlots}, {@linkcode spendBatchBudget}); the order and the
 * outcomes are the machines' (a property test holds this module to them:
 * same stream, same deliveries, same notices, same output, with store
 * failures). A phase in which a person reviews a result needs the
 * `toolCall` actor's prompts: for it, {@linkcode joinedPhase} declines, and
 * the session runs the `phase` machine, as it also does under
 * `serve --inspect`, where the actors are what is watched.
 *
 * @module
 */

import { SpillwayError } from "../errors/spillway_error.ts";
import type { CallRecord, IndexedDelivery } from "../machines/call_record.ts";
import { capSlots } from "../machines/cap_slots.ts";
import type { PhaseInput, PhaseOutput } from "../machines/phase_machine.ts";
import { reportNotice } from "../machines/report_notice.ts";
import { acknowledgementOf, recordedResponse } from "../machines/review_release.ts";
import { runUnattendedCalls } from "../machines/run_unattended_calls.ts";
import { failedReview, notRecordedMessage } from "../machines/synthesized_reviews.ts";
import { triageCalls } from "../machines/triage_calls.ts";
import type { NoticeFact } from "../review/notice.ts";
import type { Review } from "../review/review.ts";
import { spendBatchBudget } from "../review/spend_batch_budget.ts";
import { reasonText } from "../service/reason_text.ts";
import { toolCallResponseEvent } from "../stream/tool_call_response_event.ts";

const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/**
 * Runs the phase of `input.joined` (and no calls of its own) to the end of
 * its commit, as the `phase` machine would; `undefined` when one of its
 * calls asks a person about its result, or an observer watches the calls
 * (run the machine then).
 */
export function joinedPhase(input: PhaseInput): Promise<PhaseOutput> | undefined {
  if (input.observer !== undefined) return undefined;
  const records = triageCalls(input.calls, input.joined ?? [], {
    executor: input.executor,
    policyFor: input.policyFor,
    available: input.available,
    signal: input.signal ?? NEVER_ABORTED,
  });
  if (records.some(({ route }) => route !== "answered" && route !== "joined")) return undefined;
  return runPhase(records, input);
}

async function runPhase(triaged: readonly CallRecord[], input: PhaseInput): Promise<PhaseOutput> {
  const reviews = await runUnattendedCalls({
    input: { records: triaged.filter(({ route }) => route === "joined") },
  });
  const slotted = new Map(reviews.map(({ index, review }) => [index, review]));
  let records: readonly CallRecord[] = triaged.map((record) => {
    const review = slotted.get(record.index);
    return review === undefined || record.review !== undefined ? record : { ...record, review };
  });
  let notices: readonly NoticeFact[];
  try {
    ({ records, notices } = capSlots(records));
  } catch (error) {
    // As the phase machine settles a broken phase end: every call that ran
    // gets an error response, committed like any other.
    const reason = `the phase end failed: ${reasonText(error)}`;
    records = records.map((record) =>
      record.route === "answered"
        ? record
        : { ...record, review: failedReview(record.call, reason) }
    );
    notices = [];
  }
  return await commit([...records].sort((a, b) => a.index - b.index), notices, input);
}

/** The `commit` machine's states, in order: ceiling, record, flush, notices, release. */
async function commit(
  batch: readonly CallRecord[],
  phaseNotices: readonly NoticeFact[],
  { stream, noticeSink }: PhaseInput,
): Promise<PhaseOutput> {
  const { reviews, notices: ceilingNotices } = spendBatchBudget(
    batch.map((record) => record.review as Review),
  );
  const recorded = reviews.map(recordedResponse);
  let error: SpillwayError | undefined;
  let notices: readonly NoticeFact[] = [];
  try {
    await stream.append(recorded.map(toolCallResponseEvent));
    await stream.flush();
    notices = [...phaseNotices, ...ceilingNotices];
    for (const fact of notices) reportNotice(noticeSink, fact);
  } catch (cause) {
    error = new SpillwayError(
      "not_recorded",
      `the results of this batch were not recorded: ${reasonText(cause)}`,
      { callIds: batch.map((record) => record.call.id) },
      { cause },
    );
  }
  const failure = error === undefined ? undefined : reasonText(error.cause);
  const released = batch.flatMap((record, i) => record.link === undefined ? [] : [{ record, i }]);
  const outcomes = await Promise.all(
    released.map(({ record, i }) =>
      (record.link as NonNullable<CallRecord["link"]>).release(
        ...(failure === undefined
          ? [acknowledgementOf(reviews[i] as Review), recorded[i]] as const
          : [
            { kind: "fail", message: notRecordedMessage(record.call.id, failure) } as const,
            undefined,
          ] as const),
      )
    ),
  );
  const deliveries: IndexedDelivery[] = released.map(({ record }, j) => ({
    index: record.index,
    callId: record.call.id,
    delivery: outcomes[j] as IndexedDelivery["delivery"],
  }));
  if (error !== undefined) {
    return { status: "failed", recorded: [], notices: [], deliveries, error };
  }
  return { status: "done", recorded, notices, deliveries };
}
