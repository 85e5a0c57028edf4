/**
 * The member-keeping cut of a JSON value: every member of every object is
 * kept, the budget shared among them largest first (as the batch ceiling
 * shares its budget among responses), and what is cut to fit is the
 * trailing elements of arrays and the tail of strings. It is the second cut
 * a structured result is given when the json cut (a prefix in document
 * order, which drops an object's later members) does not satisfy the
 * tool's output schema: a schema names the members it requires, and types
 * them, but rarely bounds how long a string or an array is. The value is
 * written compactly, as `JSON.stringify` writes it, with no notes.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { cutJsonValue } from "./cut_json_value.ts";

const utf8 = (text: string) => Buffer.byteLength(text, "utf8");

/**
 * `value`'s compact JSON cut to at most `budget` UTF-8 bytes keeping every
 * object member (in order), or `undefined` when even the smallest such
 * value does not fit: every member kept with its smallest value (`""` for a
 * string, `[]` for an array, the same for an object; a number, `true`,
 * `false` or `null` whole). Arrays keep their leading elements, the last
 * one kept cut the same way; strings keep their leading characters (never
 * half an escape or a surrogate pair). A value that fits comes back as its
 * compact JSON.
 *
 * @param value a JSON value (as `JSON.parse` makes them)
 * @param budget the limit in UTF-8 bytes
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cutKeepingMembers } from "./cut_keeping_members.ts";
 * const value = { text: "x".repeat(1000), bytes: 1000 };
 * assert.equal(cutKeepingMembers(value, 40), '{"text":"xxxxxxxxxxxxxxxx","bytes":1000}');
 * assert.equal(cutKeepingMembers(value, 20), undefined);
 * ```
 */
export function cutKeepingMembers(value: unknown, budget: number): string | undefined {
  const json = JSON.stringify(value);
  if (json === undefined) return undefined;
  const bytes = utf8(json);
  if (bytes <= budget) return json;
  try {
    // Read back from its JSON, the value is plain JSON: what toJSON methods,
    // undefined members and non-finite numbers become is settled once.
    return cut(JSON.parse(json), json, bytes, budget, new WeakMap());
  } catch (error) {
    // Nested deeper than the stack goes: no such cut.
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** The smallest bytes of each object cut so far (a nested object is asked about again). */
type Smallest = WeakMap<object, number>;

function cut(
  value: unknown,
  json: string,
  bytes: number,
  budget: number,
  smallest: Smallest,
): string | undefined {
  if (bytes <= budget) return json;
  if (typeof value === "string") {
    if (budget < 2) return undefined;
    const string = cutJsonValue(json, budget, { notes: false });
    return string.kind === "cut" ? string.text : undefined;
  }
  if (Array.isArray(value)) return cutArray(value, budget, smallest);
  if (typeof value === "object" && value !== null) {
    return cutObject(value as Readonly<Record<string, unknown>>, budget, smallest);
  }
  return undefined; // a number, true, false or null: whole or nothing
}

/** The leading elements that fit, the last of them cut if something of it fits. */
function cutArray(
  items: readonly unknown[],
  budget: number,
  smallest: Smallest,
): string | undefined {
  if (budget < 2) return undefined;
  let out = "[";
  let used = 2;
  for (const item of items) {
    const comma = out.length > 1 ? 1 : 0;
    const room = budget - used - comma;
    if (room <= 0) break;
    const json = JSON.stringify(item);
    const bytes = utf8(json);
    if (bytes <= room) {
      out += (comma === 1 ? "," : "") + json;
      used += comma + bytes;
      continue;
    }
    const part = cut(item, json, bytes, room, smallest);
    if (part !== undefined) out += (comma === 1 ? "," : "") + part;
    break;
  }
  return out + "]";
}

/** Every member, each given its share of the budget, largest first. */
function cutObject(
  object: Readonly<Record<string, unknown>>,
  budget: number,
  smallest: Smallest,
): string | undefined {
  if (smallestBytes(object, smallest) > budget) return undefined;
  const members = Object.entries(object).map(([key, value]) => {
    const json = JSON.stringify(value);
    const least = smallestBytes(value, smallest);
    return { key: JSON.stringify(key), value, json, bytes: utf8(json), least };
  });
  let fixed = 2 + Math.max(0, members.length - 1); // braces and commas
  for (const member of members) fixed += utf8(member.key) + 1 + member.least;
  const level = shareLevel(members.map((member) => member.bytes - member.least), budget - fixed);
  const parts = members.map((member) => {
    const share = member.least + Math.min(member.bytes - member.least, level);
    // At least its smallest value's bytes: the cut of it fits.
    const kept = cut(member.value, member.json, member.bytes, share, smallest) as string;
    return `${member.key}:${kept}`;
  });
  return `{${parts.join(",")}}`;
}

/** The UTF-8 bytes of the smallest value the cut can make of the JSON value `value`. */
function smallestBytes(value: unknown, smallest: Smallest): number {
  if (typeof value === "string" || Array.isArray(value)) return 2;
  if (typeof value !== "object" || value === null) return utf8(JSON.stringify(value));
  const known = smallest.get(value);
  if (known !== undefined) return known;
  let bytes = 2;
  let count = 0;
  for (const [key, member] of Object.entries(value)) {
    bytes += (count++ > 0 ? 1 : 0) + utf8(JSON.stringify(key)) + 1 +
      smallestBytes(member, smallest);
  }
  smallest.set(value, bytes);
  return bytes;
}

/** The highest level L with Σ min(excess_i, L) ≤ room (water-filling), `Infinity` when all fit. */
function shareLevel(excesses: readonly number[], room: number): number {
  let total = 0;
  for (const excess of excesses) total += excess;
  if (total <= room) return Infinity;
  const sorted = Float64Array.from(excesses).sort();
  let remaining = room;
  for (let i = 0; i < sorted.length; i++) {
    const excess = sorted[i] as number;
    const share = Math.floor(remaining / (sorted.length - i));
    if (excess > share) return share;
    remaining -= excess;
  }
  return Infinity;
}
