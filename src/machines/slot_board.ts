/**
 * The slots of a call group: one place per call where the call writes its
 * review (docs/architecture.md, "Words"). Each `toolCall` writes its own
 * slot from its `reviewSlot` state; the board tells the group once, when the
 * last slot of the group is written.
 *
 * Why a board and not a `slot.written` event per call: every event costs the
 * receiving actor a macrostep (and the garbage XState allocates for it); a
 * call group of 32 calls received 32 of them only to count to 32. Writing
 * into a shared array and sending one event per group took a few percent
 * off a 1,000-call phase.
 *
 * @module
 */

import type { Review } from "../review/review.ts";
import type { IndexedReview } from "./indexed_call.ts";

/** The slots of a group's calls, by call index. */
export class SlotBoard {
  readonly #indices: readonly number[];
  readonly #positions: ReadonlyMap<number, number>;
  readonly #reviews: (Review | undefined)[];
  readonly #onFull: () => void;
  #written = 0;

  /**
   * An empty board for the calls of `indices`.
   *
   * @param indices the call indices of the group, in call order
   * @param onFull told once, on a later microtask, when the last slot is written
   */
  constructor(indices: readonly number[], onFull: () => void) {
    this.#indices = indices;
    this.#positions = new Map(indices.map((index, position) => [index, position]));
    this.#reviews = new Array<Review | undefined>(indices.length).fill(undefined);
    this.#onFull = onFull;
  }

  /**
   * Writes the review of call `index`. The first write of a slot wins; an
   * index that is not on the board is ignored.
   */
  write(index: number, review: Review): void {
    const position = this.#positions.get(index);
    if (position === undefined || this.#reviews[position] !== undefined) return;
    this.#reviews[position] = review;
    this.#written += 1;
    // Told on a microtask, not inside the writing call's transition: the
    // group then hears of it after that call's step is complete, as it would
    // for an event.
    if (this.full) queueMicrotask(this.#onFull);
  }

  /** Whether every slot is written (true at once for a board without calls). */
  get full(): boolean {
    return this.#written === this.#indices.length;
  }

  /** The reviews written so far, in call order. */
  reviews(): IndexedReview[] {
    const slots: IndexedReview[] = [];
    this.#indices.forEach((index, position) => {
      const review = this.#reviews[position];
      if (review !== undefined) slots.push({ index, review });
    });
    return slots;
  }
}
