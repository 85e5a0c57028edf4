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

import { setImmediate } from "node:timers";
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
 * How many calls start at once; the next slice starts a macrotask later.
 *
 * Calls started together advance together: each promise hop of a call (the
 * MCP request, its validation, the service's handler, the source call, the
 * park) runs for every call started before the next hop runs for any, so
 * what one hop leaves for the next is alive for all of them at once. In a
 * 10,000-call batch that is more than V8's young generation holds: the
 * garbage collector copies it, promotes it and collects it later from the
 * old generation, at a cost that grows faster than the batch. A slice's
 * calls run through their hops (up to the park, or to their first wait for
 * I/O) before the next slice starts, so only what a parked call keeps stays
 * alive. Slices do not wait for each other's calls to end: a slow tool
 * holds up no other call. Measured on the pipeline bench (CPU time, the
 * variants alternating in one process): a 10,000-call turn 20–30% cheaper
 * with slices of 32 to 256 than with none; a 1,000-call turn the same.
 */
export const START_SLICE = 64;

/**
 * Starts every call, {@linkcode START_SLICE} at a time, and resolves with
 * their reviews, in the order given. Once `signal` aborts (the phase
 * stopped: it has abandoned every link), no further call starts. Rejects
 * only on a bug: a record without a link or a policy.
 */
export function runUnattendedCalls(
  { input, signal }: { input: UnattendedCallsInput; signal: AbortSignal },
): Promise<IndexedReview[]> {
  const { records, observer } = input;
  const reviews: Promise<IndexedReview>[] = [];
  return new Promise((resolve, reject) => {
    const startSlice = () => {
      if (signal.aborted) return;
      try {
        const end = Math.min(records.length, reviews.length + START_SLICE);
        while (reviews.length < end) {
          reviews.push(runCall(records[reviews.length] as CallRecord, observer));
        }
      } catch (error) {
        reject(error);
        return;
      }
      if (reviews.length < records.length) setImmediate(startSlice);
      else Promise.all(reviews).then(resolve, reject);
    };
    startSlice();
  });
}

/**
 * Starts one call and settles its review. A promise chain rather than an
 * async function: the batch holds thousands of them at once, and a
 * suspended async function keeps more.
 */
function runCall(
  { index, call, policy, link }: CallRecord,
  observer: TurnObserver | undefined,
): Promise<IndexedReview> {
  if (link === undefined || policy === undefined) {
    throw new TypeError(`call ${call.id} has no execution link or policy to run with`);
  }
  observe(observer, (o) => o.toolCallStarted?.(call));
  return link.start(call).then((outcome): IndexedReview => {
    const review = outcome.kind !== "executed"
      ? reviewOfEarlyEnd(call, policy, outcome)
      : policy.result === "skip"
      ? withheldResultReview(call)
      : acceptedReview(call.name, outcome.response);
    // The observer (the terminal) gets the uncapped response: the cap is a delivery limit.
    observe(observer, (o) => o.toolCallResult?.(call, review.response));
    return { index, review };
  });
}
