/**
 * The one domain error of spillway: a runtime fault with a stable string
 * `code` that callers can branch on, plus typed details. Tool failures are
 * not errors (they are `isError` responses); this is for faults of the
 * runtime itself: invalid config, a result that was not recorded, a delivery
 * that differs from what was recorded.
 *
 * @module
 */

/** Stable codes carried by {@linkcode SpillwayError}. */
export type SpillwayErrorCode =
  | "config_invalid"
  | "delivery_mismatch"
  | "not_recorded"
  | "store_failed"
  | "tool_unavailable"
  | "malformed_result"
  | "terminal_required"
  | "script_invalid"
  | "provider_failed"
  | "conversation_locked"
  | "usage";

/**
 * A runtime fault with a stable `code`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SpillwayError } from "./spillway_error.ts";
 * const e = new SpillwayError("not_recorded", "result of call_1 was not recorded");
 * assert.equal(e.code, "not_recorded");
 * ```
 */
export class SpillwayError extends Error {
  /** The stable code, e.g. `"config_invalid"`. */
  readonly code: SpillwayErrorCode;
  /** Structured facts about the fault (file, key, value, call id, …). */
  readonly details: Readonly<Record<string, unknown>>;

  /**
   * Creates the error.
   *
   * @param code the stable code
   * @param message a message naming what failed, the value, and what would be accepted
   * @param details structured facts for programs; defaults to `{}`
   */
  constructor(
    code: SpillwayErrorCode,
    message: string,
    details: Readonly<Record<string, unknown>> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "SpillwayError";
    this.code = code;
    this.details = details;
  }
}
