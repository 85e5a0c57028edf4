/**
 * One line of text for anything thrown or passed to `abort()`: what an
 * outcome's `reason` and a delivery failure's message carry.
 *
 * @module
 */

/**
 * The text of an abort reason or a thrown value: an error's message (its
 * name when the message is empty), a string as it is, `"aborted"` for
 * `undefined`, anything else as JSON.
 *
 * @param reason what was thrown, or the signal's `reason`
 * @returns a one-line description
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reasonText } from "./reason_text.ts";
 * assert.equal(reasonText(new Error("disk full")), "disk full");
 * assert.equal(reasonText("user pressed Ctrl-C"), "user pressed Ctrl-C");
 * assert.equal(reasonText(undefined), "aborted");
 * assert.equal(reasonText({ code: 7 }), '{"code":7}');
 * ```
 */
export function reasonText(reason: unknown): string {
  if (reason instanceof Error) return reason.message || reason.name;
  if (typeof reason === "string") return reason;
  if (reason === undefined) return "aborted";
  try {
    return JSON.stringify(reason) ?? String(reason);
  } catch {
    return String(reason);
  }
}
