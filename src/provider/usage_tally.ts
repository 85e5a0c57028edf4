/**
 * The tokens a turn spent, summed over its model requests, for the closing
 * line of `query`. Requests whose API reports no usage add nothing; a turn
 * none of whose requests reported any has no figure to show.
 *
 * @module
 */

import type { TokenUsage } from "./provider.ts";

/**
 * Sums {@linkcode TokenUsage} over requests.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { UsageTally } from "./usage_tally.ts";
 * const tally = new UsageTally();
 * assert.equal(tally.describe(), undefined);
 * tally.add({ inputTokens: 1200, outputTokens: 34 });
 * tally.add({ inputTokens: 2400, outputTokens: 56 });
 * assert.equal(tally.describe(), "3,600 input + 90 output tokens");
 * ```
 */
export class UsageTally {
  #input = 0;
  #output = 0;
  #reported = false;

  /** Adds one request's usage (nothing when it is `undefined`). */
  add(usage: TokenUsage | undefined): void {
    if (usage === undefined) return;
    this.#input += usage.inputTokens;
    this.#output += usage.outputTokens;
    this.#reported = true;
  }

  /** The sum so far, or `undefined` when no request reported usage. */
  get total(): TokenUsage | undefined {
    return this.#reported ? { inputTokens: this.#input, outputTokens: this.#output } : undefined;
  }

  /** `"3,600 input + 90 output tokens"`, or `undefined` when nothing was reported. */
  describe(): string | undefined {
    if (!this.#reported) return undefined;
    return `${grouped(this.#input)} input + ${grouped(this.#output)} output tokens`;
  }
}

function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
