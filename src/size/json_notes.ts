/**
 * What a json cut writes where it dropped something, so that the model can
 * tell what is missing and how much: an array's last element, an object's
 * last member, the end of a cut string. They are a public format, like the
 * marker (docs/caps.md; golden tests hold them): scripts and assistants
 * will match on them.
 *
 * - an array that lost elements ends with the string `"… 9,421 more items"`;
 * - an object that lost members ends with the member `"…":"12 more members"`;
 * - a cut string ends with `… 1,048,576 more bytes`, the UTF-8 bytes of the
 *   rest of it as the original JSON text spells it (escapes as written).
 *
 * Counts are whole numbers with a comma every three digits; one is
 * singular (`1 more item`).
 *
 * @module
 */

/** The key of the member that ends an object whose later members were dropped. */
export const MORE_MEMBERS_KEY = "…";

/**
 * A count with a comma between each group of three digits: `9,421`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { groupedCount } from "./json_notes.ts";
 * assert.equal(groupedCount(1234567), "1,234,567");
 * assert.equal(groupedCount(999), "999");
 * ```
 */
export function groupedCount(count: number): string {
  const digits = String(count);
  let grouped = "";
  for (let end = digits.length; end > 0; end -= 3) {
    const group = digits.slice(Math.max(0, end - 3), end);
    grouped = grouped === "" ? group : `${group},${grouped}`;
  }
  return grouped;
}

const counted = (count: number, unit: string) =>
  `${groupedCount(count)} more ${unit}${count === 1 ? "" : "s"}`;

/**
 * The last element of an array that lost `count` elements (the string's
 * content, unquoted).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { moreItemsNote } from "./json_notes.ts";
 * assert.equal(moreItemsNote(9421), "… 9,421 more items");
 * assert.equal(moreItemsNote(1), "… 1 more item");
 * ```
 */
export function moreItemsNote(count: number): string {
  return `… ${counted(count, "item")}`;
}

/**
 * The value of the {@linkcode MORE_MEMBERS_KEY} member ending an object
 * that lost `count` members.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { moreMembersNote } from "./json_notes.ts";
 * assert.equal(moreMembersNote(12), "12 more members");
 * ```
 */
export function moreMembersNote(count: number): string {
  return counted(count, "member");
}

/**
 * What ends a string cut `count` bytes before its end.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { moreBytesNote } from "./json_notes.ts";
 * assert.equal(moreBytesNote(1048576), "… 1,048,576 more bytes");
 * ```
 */
export function moreBytesNote(count: number): string {
  return `… ${counted(count, "byte")}`;
}
