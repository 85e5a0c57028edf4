/**
 * Conversation ids become directory names (file store) and key parts (later
 * KV stores), so every backend accepts the same small, path-safe alphabet and
 * rejects anything that could climb out of the store root.
 *
 * @module
 */

/** The longest id accepted: a file name is at most 255 bytes on common file systems. */
export const MAX_CONVERSATION_ID_LENGTH = 255;

const ID_PATTERN = /^[A-Za-z0-9._-]+$/;

/**
 * Checks that `id` can name a conversation: 1–255 characters from
 * `A–Z a–z 0–9 . _ -`, not `.` and without `..`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { assertConversationId } from "./assert_conversation_id.ts";
 * assertConversationId("20261129-225600-ab12cd");
 * assert.throws(() => assertConversationId("../etc"), TypeError);
 * ```
 *
 * @param id the candidate id
 * @throws {TypeError} when the id is not accepted; the message quotes it
 */
export function assertConversationId(id: string): void {
  if (
    typeof id !== "string" || id.length === 0 || id.length > MAX_CONVERSATION_ID_LENGTH ||
    !ID_PATTERN.test(id) || id === "." || id.includes("..")
  ) {
    throw new TypeError(
      `conversation id ${quote(id)} is invalid: use 1–${MAX_CONVERSATION_ID_LENGTH} characters ` +
        `from A–Z a–z 0–9 . _ - (not "." and without "..")`,
    );
  }
}

function quote(id: unknown): string {
  if (typeof id !== "string") return String(id);
  const shown = id.length > 64 ? `${id.slice(0, 64)}…` : id;
  return JSON.stringify(shown);
}
