/**
 * A clock double stopped at one instant, so recorded timestamps are
 * predictable.
 *
 * @module
 */

import type { Clock } from "../machines/turn_dependencies.ts";

/** Where {@linkcode fixedClock} stops by default: 2025-01-01T00:00:00Z. */
export const FIXED_INSTANT = "2025-01-01T00:00:00.000Z";

/**
 * A clock that always says `at`.
 *
 * @param at an ISO timestamp; default {@linkcode FIXED_INSTANT}
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fixedClock } from "./fixed_clock.ts";
 * assert.equal(fixedClock().now().toISOString(), "2025-01-01T00:00:00.000Z");
 * ```
 */
export function fixedClock(at: string = FIXED_INSTANT): Clock {
  return { now: () => new Date(at) };
}
