/**
 * A path as a person reads it in a terminal: relative to the working
 * directory when it is inside it, else whole. The terminal's result links,
 * the commands' workspace paths and the repair hint print paths this way.
 *
 * @module
 */

import { relative } from "node:path";

/**
 * `path` relative to `cwd` when it is inside it, else `path` itself.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shownPath } from "./shown_path.ts";
 * assert.equal(shownPath("/w", "/w/.spillway/results"), ".spillway/results");
 * assert.equal(shownPath("/w", "/elsewhere/ws"), "/elsewhere/ws");
 * assert.equal(shownPath("/w", "/w"), "/w");
 * ```
 */
export function shownPath(cwd: string, path: string): string {
  const inside = relative(cwd, path);
  return inside !== "" && !inside.startsWith("..") ? inside : path;
}
