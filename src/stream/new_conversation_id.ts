/**
 * Fresh conversation ids: the UTC start time first so ids sort by creation
 * (in `ls` as well as in `list()` ties), then random hex so two conversations
 * started in the same second do not collide.
 *
 * @module
 */

/**
 * Returns a new conversation id like `20261129-225600-ab12cd`: UTC
 * `YYYYMMDD-HHMMSS` from `clock`, then 6 random hex characters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { newConversationId } from "./new_conversation_id.ts";
 * const id = newConversationId(() => new Date("2026-11-29T22:56:00Z"));
 * assert.match(id, /^20261129-225600-[0-9a-f]{6}$/);
 * ```
 *
 * @param clock where the time comes from; defaults to `() => new Date()`
 * @returns the id; it always passes `assertConversationId`
 * @throws {RangeError} when the clock returns an invalid date
 */
export function newConversationId(clock: () => Date = () => new Date()): string {
  const t = clock();
  if (Number.isNaN(t.getTime())) {
    throw new RangeError(`newConversationId(): the clock returned an invalid date`);
  }
  const date = `${String(t.getUTCFullYear()).padStart(4, "0")}${pad(t.getUTCMonth() + 1)}${
    pad(t.getUTCDate())
  }`;
  const time = `${pad(t.getUTCHours())}${pad(t.getUTCMinutes())}${pad(t.getUTCSeconds())}`;
  const random = crypto.getRandomValues(new Uint8Array(3));
  const hex = Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${date}-${time}-${hex}`;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}
