/**
 * The json cut of a value: the longest prefix of a JSON text, in document
 * order and shape for shape, that is itself one JSON value within a byte
 * budget. The kept part keeps the original's bytes (its whitespace
 * included: nothing is re-serialized); only what closes it is written:
 * closing brackets and quotes, and (unless asked not to) a note where
 * something was dropped ({@link ./json_notes.ts}). This is the cut without
 * the marker line: {@linkcode capJson} adds it; a structured result, whose
 * schema a note could break, is cut here with `notes: false`, measured as
 * the UTF-8 bytes of its compact JSON.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { type JsonCloseCosts, type JsonCutPoint, jsonCutPoint } from "./_json_cut_point.ts";
import { longestHead } from "./_utf8_edges.ts";
import type { JsonFallback } from "./json_fallback.ts";
import { MORE_MEMBERS_KEY, moreBytesNote, moreItemsNote, moreMembersNote } from "./json_notes.ts";
import type { JsonScan } from "./json_scan.ts";
import { JsonScanner } from "./json_scanner.ts";
import { isWholeWindow, type TextWindow } from "./text_window.ts";

/** How {@linkcode cutJsonValue} cuts; every field is optional. */
export interface CutJsonValueOptions {
  /** Whether to say inside the value what was dropped. Default `true`. */
  readonly notes?: boolean | undefined;
  /**
   * Whether only an object or an array is cut as JSON (`truncation =
   * "auto"`); any other value is then `not_container`. Default `false`.
   */
  readonly containersOnly?: boolean | undefined;
}

/** What {@linkcode cutJsonValue} made. */
export type CutJsonValue =
  /** The cut value (the input itself when it fit). */
  | { readonly kind: "cut"; readonly text: string; readonly bytes: number }
  /** No JSON cut: why (the caller cuts as head). */
  | { readonly kind: "fallback"; readonly fallback: JsonFallback };

const utf8 = (text: string) => Buffer.byteLength(text, "utf8");
/** How many times a cut walks again into the room its closing left over. */
const REFINEMENTS = 3;

/**
 * Cuts `input` to a JSON value of at most `budget` UTF-8 bytes. Every
 * element or member kept is whole except the last one kept (at any
 * depth); a string is cut between characters, never inside an escape or a
 * surrogate pair; numbers, `true`, `false`, `null` and keys are whole or
 * dropped. The result fills the budget to within the largest thing that
 * cannot be cut (a key, a number) plus what the notes may add per level of
 * nesting. A window is cut as the whole text it stands for, from its head
 * and the scan it carries (`json`); one without a scan is `not_json`.
 *
 * @param input a text in memory, or a window on one too large to hold
 * @param budget the limit in UTF-8 bytes
 * @throws {RangeError} when a window's scan does not describe its head
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cutJsonValue } from "./cut_json_value.ts";
 * const text = JSON.stringify({ items: Array.from({ length: 100 }, (_, i) => i), done: true });
 * const cut = cutJsonValue(text, 64);
 * assert.equal(cut.kind, "cut");
 * if (cut.kind === "cut") {
 *   assert.equal(cut.text, '{"items":[0,1,2,3,4,"… 95 more items"],"…":"1 more member"}');
 *   assert.ok(cut.bytes <= 64);
 * }
 * assert.deepEqual(cutJsonValue("{} {}", 3), { kind: "fallback", fallback: "not_json" });
 * ```
 */
export function cutJsonValue(
  input: string | TextWindow,
  budget: number,
  options: CutJsonValueOptions = {},
): CutJsonValue {
  const whole = typeof input === "string";
  const originalBytes = whole ? utf8(input) : input.bytes;
  if (originalBytes <= budget) {
    if (whole) return { kind: "cut", text: input, bytes: originalBytes };
    if (isWholeWindow(input)) {
      return { kind: "cut", text: input.head + input.tail, bytes: originalBytes };
    }
  }
  const text = whole ? input : input.head;
  // No point beyond the budget's bytes can be kept: the walks stop there, so
  // that a window (whose head may reach further) and the whole text find the
  // same points.
  const reach = longestHead(text, budget).text.length;
  // What lies beyond what the cut can keep: the scanner says, marked where that ends.
  const scan = whole ? JsonScanner.scan(text, reach) : input.json;
  if (scan?.value === undefined) return { kind: "fallback", fallback: "not_json" };
  if (options.containersOnly === true && scan.value !== "object" && scan.value !== "array") {
    return { kind: "fallback", fallback: "not_container" };
  }
  if (!whole && scan.markAt !== text.length) {
    throw new RangeError(`a window's scan is marked at ${scan.markAt}, its head is ${text.length}`);
  }
  const end = Math.min(reach, whole ? text.length : scan.markAt);
  const atEnd = whole && end === text.length;
  const notes = options.notes ?? true;
  const costs = closeCosts(notes, originalBytes);
  let point = jsonCutPoint(text, end, budget, costs, atEnd);
  if (point === undefined) return { kind: "fallback", fallback: "no_room" };
  let closing = closingText(text, point, scan, notes);
  // The walk charged every open thing the most it could add; what it did
  // add is known now. Walk again into what was left over, and keep the
  // later point when its own closing still fits.
  for (let round = 0; round < REFINEMENTS; round++) {
    const over = point.closing - utf8(closing);
    if (over <= 0) break;
    const later = jsonCutPoint(text, end, budget + over, costs, atEnd);
    if (later === undefined || later.at <= point.at || later.bytes > budget) break;
    const laterClosing = closingText(text, later, scan, notes);
    if (later.bytes + utf8(laterClosing) > budget) break;
    point = later;
    closing = laterClosing;
  }
  return {
    kind: "cut",
    text: text.slice(0, point.at) + closing,
    bytes: point.bytes + utf8(closing),
  };
}

/** The most closing can add per open thing; with notes, for counts up to `originalBytes`. */
function closeCosts(notes: boolean, originalBytes: number): JsonCloseCosts {
  if (!notes) return { array: 1, object: 1, string: 1 };
  // No count can exceed the text's size (each dropped thing takes a byte at least).
  const most = Math.max(2, originalBytes);
  return {
    array: 1 + 1 + utf8(JSON.stringify(moreItemsNote(most))),
    object: 1 + 1 +
      utf8(`${JSON.stringify(MORE_MEMBERS_KEY)}:${JSON.stringify(moreMembersNote(most))}`),
    string: 1 + utf8(moreBytesNote(most)),
  };
}

/**
 * What closes the prefix `text.slice(0, point.at)`: the open string's note and
 * quote, then each open container's note and bracket, innermost first.
 * The counts come from scanning the known text again, marked at the cut,
 * and, for what is still open where the known text ends, from `scan`.
 */
function closingText(text: string, point: JsonCutPoint, scan: JsonScan, notes: boolean): string {
  const { at, inString } = point;
  const scanner = new JsonScanner();
  scanner.push(text.slice(0, at));
  scanner.mark();
  scanner.push(text.slice(at, scan.markAt));
  const cut = scanner.end();
  let closing = "";
  if (inString) {
    const string = cut.string;
    if (string === undefined) throw new RangeError("a cut inside a string found no string open");
    const rest = string.closed ? string.rest : string.rest + restOf(scan);
    if (notes && rest > 0) closing += moreBytesNote(rest);
    closing += '"';
  }
  for (let level = cut.open.length - 1; level >= 0; level--) {
    const { kind, before, total } = cut.open[level]!;
    // Still open where the known text ends: the scan beyond it has the count.
    const outer = total === undefined ? scan.open[level] : undefined;
    const all = total ?? (outer?.kind === kind ? outer.total : undefined);
    if (all === undefined) {
      throw new RangeError(`the scan has no count for the container open at level ${level}`);
    }
    const dropped = all - before;
    if (notes && dropped > 0) {
      const comma = before > 0 ? "," : "";
      closing += kind === "array"
        ? `${comma}${JSON.stringify(moreItemsNote(dropped))}`
        : `${comma}${JSON.stringify(MORE_MEMBERS_KEY)}:${JSON.stringify(moreMembersNote(dropped))}`;
    }
    closing += kind === "array" ? "]" : "}";
  }
  return closing;
}

/** The bytes of the string open at a scan's mark from there to its end. */
function restOf(scan: JsonScan): number {
  const string = scan.string;
  if (string === undefined || !string.closed) {
    throw new RangeError("the scan has no string open at its mark");
  }
  return string.rest;
}
