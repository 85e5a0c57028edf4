/**
 * Counted nouns for terminal lines: `1 line`, `3 lines`.
 *
 * @module
 */

/**
 * `count` and `noun`, with an `s` unless the count is 1.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { plural } from "./plural.ts";
 * assert.equal(plural(1, "line"), "1 line");
 * assert.equal(plural(0, "cut response"), "0 cut responses");
 * ```
 */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
