/**
 * A tool call's time limit, the same for every source: how long a call may
 * run by default, and what the assistant reads when it ran out. A timed-out
 * call is a tool failure (an `isError` result), not a fault of the runtime:
 * the assistant can try something smaller.
 *
 * @module
 */

import { DEFAULT_TOOL_TIMEOUT_SECONDS } from "../config/builtin_defaults.ts";
import type { ToolResult } from "./tool_source.ts";

/**
 * How long a tool call may run when its config sets no `timeout`: 120 s,
 * for builtin, local and upstream tools alike.
 */
export const DEFAULT_TOOL_TIMEOUT_MS: number = DEFAULT_TOOL_TIMEOUT_SECONDS * 1000;

/**
 * The first line of a timed-out call's result: `timed out after 120s`,
 * `timed out after 0.25s`.
 *
 * @param timeoutMs the limit that passed, in ms
 * @returns the line, in seconds with at most three decimals
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { timedOutText } from "./tool_timeout.ts";
 * assert.equal(timedOutText(120_000), "timed out after 120s");
 * assert.equal(timedOutText(250), "timed out after 0.25s");
 * ```
 */
export function timedOutText(timeoutMs: number): string {
  return `timed out after ${Number((timeoutMs / 1000).toFixed(3))}s`;
}

/**
 * The result of a call that ran out of time: an `isError` text result
 * headed by {@linkcode timedOutText}, with `detail` (output that arrived
 * before the deadline) below it when there is any.
 *
 * @param timeoutMs the limit that passed, in ms
 * @param detail what to add under the first line. Default: nothing
 * @returns the result the assistant reads
 */
export function timedOutResult(timeoutMs: number, detail = ""): ToolResult {
  return { content: [{ type: "text", text: timedOutText(timeoutMs) + detail }], isError: true };
}

/**
 * Checks a time limit in ms: a positive safe integer no longer than a timer
 * can hold (2^31 − 1 ms, about 24.8 days).
 *
 * @param what names the setting in the message, e.g. `cargo_test.timeoutMs`
 * @param value the limit
 * @throws {RangeError} naming the setting and the value
 */
export function requireTimeoutMs(what: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0 || value > MAX_TIMER_MS) {
    throw new RangeError(
      `${what} must be a positive integer of milliseconds up to ${MAX_TIMER_MS}, got ${value}`,
    );
  }
}

/** The longest delay `setTimeout` honours; a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
