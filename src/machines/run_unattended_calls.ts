/**
 * The phase's own driving of the calls nobody is asked about (and of joined
 * calls): start each through its execution link, and when it is parked or
 * ended early, settle its review as the `toolCall` machine would on the
 * same route (`execute` → `resultPrompt`, passed without prompting →
 * `reviewSlot`): the parked response accepted, or withheld under `result =
 * "skip"`; a lost, cancelled or failed call gets the review the Host writes
 * itself. Run by the phase's `runUnattendedCalls` actor, which settles once
 * every call has a review: one event for the whole batch, so a 10,000-call
 * phase copies its records once, not once per call.
 *
 * @module
 */

import { acceptedReview } from "../review/review.ts";
import type { CallRecord, IndexedReview } from "./call_record.ts";
import { reviewOfEarlyEnd, withheldResultReview } from "./synthesized_reviews.ts";
import type { TurnObserver } from "./turn_observer.ts";
import { observe } from "./_observe.ts";

/** What {@linkcode runUnattendedCalls} drives. */
export interface UnattendedCallsInput {
  /** The records of the calls to drive (`unattended` and `joined`); each has a link and a policy. */
  readonly records: readonly CallRecord[];
  /** Told when each call starts and when its review is settled. Default: nobody. */
  readonly observer?: TurnObserver;
}

/**
 * Starts every call and resolves with their reviews, in the order given.
 * Rejects only on a bug: a record without a link or a policy.
 */
export function runUnattendedCalls(
  { input }: { input: UnattendedCallsInput },
): Promise<IndexedReview[]> {
  const { observer } = input;
  // A promise chain per call rather than an async function: the batch holds
  // thousands of them at once, and a suspended async function keeps more.
  return Promise.all(input.records.map(({ index, call, policy, link }) => {
    if (link === undefined || policy === undefined) {
      throw new TypeError(`call ${call.id} has no execution link or policy to run with`);
    }
    observe(observer, (o) => o.toolCallStarted?.(call));
    return link.start(call).then((outcome): IndexedReview => {
      const review = outcome.kind !== "executed"
        ? reviewOfEarlyEnd(call, policy.cancellationResponse, outcome)
        : policy.result === "skip"
        ? withheldResultReview(call)
        : acceptedReview(call.name, outcome.response);
      // The observer (the terminal) gets the uncapped response: the cap is a delivery limit.
      observe(observer, (o) => o.toolCallResult?.(call, review.response));
      return { index, review };
    });
  }));
}
