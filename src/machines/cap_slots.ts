/**
 * The phase end: every slot capped with its own tool's `size_threshold` (and
 * cut the way its `truncation` says, which the batch ceiling follows too), in
 * one place, after every result prompt (so it sees what a person pasted into
 * the editor). Run by the phase's `capSlots` actor.
 *
 * @module
 */

import { capReview } from "../review/cap_review.ts";
import type { NoticeFact } from "../review/notice.ts";
import type { Review } from "../review/review.ts";
import type { IndexedCall, IndexedReview } from "./indexed_call.ts";
import type { ToolPolicy } from "./turn_dependencies.ts";

/** What the phase end produced: every slot capped by its threshold. */
export interface ExecutionResult {
  /** The capped reviews, in call-index order. */
  readonly slots: readonly IndexedReview[];
  /** One notice per response the thresholds cut (cause `size_threshold`), in call order. */
  readonly notices: readonly NoticeFact[];
}

/** The phase's slots, parallel arrays by position. */
export interface CapSlotsInput {
  /** The phase's calls. */
  readonly calls: readonly IndexedCall[];
  /** The uncapped review of each call. */
  readonly slots: readonly (Review | undefined)[];
  /** The policy of each call's tool. */
  readonly policies: readonly ToolPolicy[];
}

/**
 * Caps every slot with its tool's threshold.
 *
 * @throws {Error} when a slot is unwritten (the phase ended too early: a bug)
 */
export function capSlots({ calls, slots, policies }: CapSlotsInput): ExecutionResult {
  const capped: IndexedReview[] = [];
  const notices: NoticeFact[] = [];
  const order = calls.map((_, position) => position).sort((a, b) =>
    (calls[a] as IndexedCall).index - (calls[b] as IndexedCall).index
  );
  for (const position of order) {
    const slot = slots[position];
    const entry = calls[position] as IndexedCall;
    const policy = policies[position] as ToolPolicy;
    if (slot === undefined) throw new Error(`phase end reached with slot ${entry.index} unwritten`);
    const { truncation } = policy;
    const cause = policy.thresholdCause;
    const { review, notice } = capReview(slot, policy.sizeThreshold, { truncation, cause });
    capped.push({ index: entry.index, review });
    if (notice !== undefined) notices.push(notice);
  }
  return { slots: capped, notices };
}
