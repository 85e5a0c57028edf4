/**
 * Where a cut keeps the text: its beginning (`head`, the default), its end
 * (`tail`: test runs and logs put their conclusion last), both ends
 * (`head_tail`) with the marker between them, or a JSON value's prefix that
 * is still JSON (`json` for any JSON value, `auto` for an object or an
 * array; anything else is cut as `head`). A tool's `truncation` setting
 * resolves to one of these; both caps cut with it.
 *
 * @module
 */

/** The strategies, spelled as the `truncation` setting spells them. */
export type TruncationStrategy = TextTruncationStrategy | JsonTruncationStrategy;

/** The strategies that cut bytes from the end(s) of any text. */
export type TextTruncationStrategy = "head" | "tail" | "head_tail";

/** The strategies that keep a JSON value JSON. */
export type JsonTruncationStrategy = "json" | "auto";

/** Accepted `truncation` values, in the order messages list them. */
export const TRUNCATION_STRATEGIES: readonly TruncationStrategy[] = [
  "head",
  "tail",
  "head_tail",
  "json",
  "auto",
];

/**
 * Whether `strategy` is a json cut (`json` or `auto`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isJsonStrategy } from "./truncation.ts";
 * assert.ok(isJsonStrategy("auto"));
 * assert.ok(!isJsonStrategy("head"));
 * ```
 */
export function isJsonStrategy(
  strategy: TruncationStrategy | undefined,
): strategy is JsonTruncationStrategy {
  return strategy === "json" || strategy === "auto";
}

/** The head's share of the kept bytes under `head_tail` when nothing says otherwise: an even split. */
export const DEFAULT_HEAD_PERCENT = 50;

/**
 * How a text is cut: the strategy and, for `head_tail`, the head's share of
 * the bytes kept (the tail gets the rest; the other strategies ignore it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cutText } from "./cut_text.ts";
 * import { HEAD_TRUNCATION, type Truncation } from "./truncation.ts";
 * const tail: Truncation = { strategy: "tail", headPercent: 50 };
 * assert.ok(cutText("a".repeat(2000) + "PASSED", 1024, tail).text.endsWith("PASSED"));
 * assert.equal(HEAD_TRUNCATION.strategy, "head");
 * ```
 */
export interface Truncation {
  /** Which end(s) of the text are kept. */
  readonly strategy: TruncationStrategy;
  /**
   * `head_tail` only: the head's share of the kept bytes, a whole percentage
   * from 1 to 99 (default {@linkcode DEFAULT_HEAD_PERCENT}); the other
   * strategies ignore it.
   */
  readonly headPercent: number;
}

/** The default cut: keep the head. */
export const HEAD_TRUNCATION: Truncation = Object.freeze({
  strategy: "head",
  headPercent: DEFAULT_HEAD_PERCENT,
});

/**
 * Reads a `head_tail` split as the configuration spells it, `"HEAD/TAIL"`:
 * two whole percentages from 1 to 99 that add up to 100 (spaces allowed
 * around the slash). Returns the head's percent, or `undefined` when the
 * text is not such a split.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseTruncationSplit } from "./truncation.ts";
 * assert.equal(parseTruncationSplit("20/80"), 20);
 * assert.equal(parseTruncationSplit("30/60"), undefined);
 * assert.equal(parseTruncationSplit("0/100"), undefined);
 * ```
 */
export function parseTruncationSplit(text: string): number | undefined {
  const match = /^\s*(\d{1,2})\s*\/\s*(\d{1,2})\s*$/.exec(text);
  if (match === null) return undefined;
  const head = Number(match[1]);
  const tail = Number(match[2]);
  if (head < 1 || tail < 1 || head + tail !== 100) return undefined;
  return head;
}

/**
 * Formats a truncation the way the configuration spells it: `head`, `tail`,
 * `json`, `auto`, `head_tail` (an even split) or `head_tail 30/70`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatTruncation } from "./truncation.ts";
 * assert.equal(formatTruncation({ strategy: "head_tail", headPercent: 30 }), "head_tail 30/70");
 * assert.equal(formatTruncation({ strategy: "tail", headPercent: 30 }), "tail");
 * ```
 */
export function formatTruncation(truncation: Truncation): string {
  const { strategy, headPercent } = truncation;
  if (strategy !== "head_tail" || headPercent === DEFAULT_HEAD_PERCENT) return strategy;
  return `${strategy} ${headPercent}/${100 - headPercent}`;
}
