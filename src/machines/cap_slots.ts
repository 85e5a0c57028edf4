/**
 * The phase end: every slot capped with its own tool's `size_threshold` (and
 * cut the way its `truncation` says, which the batch ceiling follows too), in
 * one place, after every result prompt (so it sees what a person pasted into
 * the editor). Calls the Host answered without running have no tool config
 * to read: the batch ceiling is what bounds them. Run by the phase's
 * `capSlots` actor.
 *
 * @module
 */

import { capReview } from "../review/cap_review.ts";
import type { NoticeFact } from "../review/notice.ts";
import type { CallRecord } from "./call_record.ts";

/** What the phase end produced. */
export interface CappedSlots {
  /** The records, each with its capped review, in the order given. */
  readonly records: readonly CallRecord[];
  /** One notice per response a threshold cut (cause `size_threshold`), in call order. */
  readonly notices: readonly NoticeFact[];
}

/**
 * Caps every written slot with its tool's threshold.
 *
 * @throws {Error} when a slot is unwritten (the phase ended too early: a bug)
 */
export function capSlots(records: readonly CallRecord[]): CappedSlots {
  const notices: NoticeFact[] = [];
  const capped = records.map((record) => {
    const { review, policy } = record;
    if (review === undefined) {
      throw new Error(`phase end reached with slot ${record.index} unwritten`);
    }
    if (record.route === "answered" || policy === undefined) return record;
    const { truncation, thresholdCause: cause, thresholdClient: client } = policy;
    const { outputSchema } = policy;
    const cut = capReview(review, policy.sizeThreshold, {
      truncation,
      cause,
      client,
      outputSchema,
    });
    if (cut.notice !== undefined) notices.push(cut.notice);
    // Cut or not, the review now carries its tool's truncation for the batch ceiling.
    return cut.review === review ? record : { ...record, review: cut.review };
  });
  return { records: capped, notices };
}
