/**
 * The json cut with its marker (`truncation = "json"` and `"auto"`): a text
 * that is one JSON value is cut to a prefix that is still one JSON value,
 * followed by a newline and the marker line, so that everything before the
 * marker line parses. A text that is not (JSON lines, a log that starts
 * with `{`, trailing text) is cut as `head`, byte for byte as `capText`
 * cuts it, and the result says why.
 *
 * @module
 */

import { capText, type CapTextResult, truncationMarker, utf8Length } from "./cap_text.ts";
import { cutJsonValue } from "./cut_json_value.ts";
import type { JsonFallback } from "./json_fallback.ts";
import { type TextWindow, wholeTextOf } from "./text_window.ts";
import type { JsonTruncationStrategy } from "./truncation.ts";

/** How {@linkcode capJson} cuts; every field is optional. */
export interface CapJsonOptions {
  /**
   * `json` cuts any JSON value as JSON; `auto` only an object or an array
   * (anything else is cut as `head`). Default `json`.
   */
  readonly strategy?: JsonTruncationStrategy | undefined;
  /**
   * Whether the cut value says what it dropped (`"… 9,421 more items"`,
   * see docs/caps.md). Default `true`.
   */
  readonly notes?: boolean | undefined;
  /** A line placed right after the marker line, inside the limit (as `capText`'s). Default none. */
  readonly reference?: string | undefined;
}

/** What a json cut produced. */
export interface CapJsonResult extends CapTextResult {
  /** Present when the text was cut as `head` instead: why. */
  readonly fallback?: JsonFallback;
}

/**
 * Caps `input` at `capBytes` UTF-8 bytes, marker included, keeping a JSON
 * value: `VALUE + "\n" + M` (and `"\n"` and the reference line when one is
 * given), with `VALUE` the json cut of the text ({@linkcode cutJsonValue})
 * and `M` the marker line. A text at or under the limit comes back
 * unchanged. The cut is never over the limit, and under it by at most the
 * largest thing that cannot be cut (a key, a number) plus what the notes
 * may add per level of nesting at the cut (docs/caps.md). A window is cut as
 * the whole text it stands for, from its head and the scan it carries.
 *
 * @param input the response content, or a window on it
 * @param capBytes the limit in UTF-8 bytes, a non-negative integer
 * @param options `json` or `auto`, notes, the reference line
 * @throws {RangeError} when `capBytes` is not a non-negative safe integer,
 *   or a window that fits the limit does not hold its whole text
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { capJson } from "./cap_json.ts";
 * const rows = JSON.stringify(Array.from({ length: 500 }, (_, id) => ({ id, name: `row ${id}` })));
 * const cut = capJson(rows, 1024);
 * const [json, marker] = cut.text.split("\n");
 * assert.equal(JSON.parse(json!).at(-1), "… 463 more items");
 * assert.equal(marker, "... [truncated, 13.4 KB → 1.0 KB]");
 * assert.ok(cut.bytes <= 1024);
 * assert.equal(capJson("not json " + "x".repeat(2000), 1024).fallback, "not_json");
 * ```
 */
export function capJson(
  input: string | TextWindow,
  capBytes: number,
  options: CapJsonOptions = {},
): CapJsonResult {
  if (!Number.isSafeInteger(capBytes) || capBytes < 0) {
    throw new RangeError(`capBytes must be a non-negative whole number, got \`${capBytes}\``);
  }
  const whole = typeof input === "string";
  const originalBytes = whole ? utf8Length(input) : input.bytes;
  if (originalBytes <= capBytes) {
    const text = whole ? input : wholeTextOf(input);
    return { text, truncated: false, originalBytes, bytes: originalBytes };
  }
  const reference = options.reference === undefined ? "" : "\n" + options.reference;
  const markerPart = "\n" + truncationMarker(originalBytes, capBytes) + reference;
  const markerBytes = utf8Length(markerPart);
  const value = markerBytes >= capBytes
    ? { kind: "fallback", fallback: "no_room" } as const
    : cutJsonValue(input, capBytes - markerBytes, {
      notes: options.notes,
      containersOnly: options.strategy === "auto",
    });
  if (value.kind === "fallback") {
    return {
      ...capText(input, capBytes, { reference: options.reference }),
      fallback: value.fallback,
    };
  }
  return {
    text: value.text + markerPart,
    truncated: true,
    originalBytes,
    bytes: value.bytes + markerBytes,
  };
}
