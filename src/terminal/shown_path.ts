/**
 * A path as a person reads it in a terminal: relative to the working
 * directory when it is inside it, else whole. The terminal's result links,
 * the commands' workspace paths and the repair hint print paths this way.
 *
 * @module
 */

import { isAbsolute, relative } from "node:path";

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
 * assert.equal(shownPath("/w", "/w/..cache/ws"), "..cache/ws");
 * ```
 */
export function shownPath(cwd: string, path: string): string {
  const inside = relative(cwd, path);
  // Outside is `..` or `../…` (a folder named `..cache` is inside), or
  // another root.
  const outside = inside === "" || inside === ".." || inside.startsWith("../") ||
    isAbsolute(inside);
  return outside ? path : inside;
}
