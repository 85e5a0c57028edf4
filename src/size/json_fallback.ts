/**
 * Why a json cut (`truncation = "json"` or `"auto"`) cut a text as `head`
 * instead. The cut falls back byte for byte to the head cut, and says so:
 * the notice, `config check` and the inspection facts name the reason with
 * {@linkcode describeJsonFallback}.
 *
 * @module
 */

/**
 * - `not_json`: the text is not one JSON value (JSON lines, a log that
 *   starts with `{`, trailing text, nesting deeper than the scanner goes);
 * - `not_container`: `auto`, and the text is one JSON value but neither an
 *   object nor an array;
 * - `no_room`: the limit leaves no room for the smallest json cut (the
 *   marker line, the value's opening and closing, its notes): only a tiny
 *   share of the batch ceiling does, or a number longer than the limit.
 */
export type JsonFallback = "not_json" | "not_container" | "no_room";

const DESCRIPTIONS: Readonly<Record<JsonFallback, string>> = {
  not_json: "not one JSON value: cut as head",
  not_container: "not a JSON object or array: cut as head",
  no_room: "too small for a JSON cut: cut as head",
};

/**
 * The words for a fallback, as notices print them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeJsonFallback } from "./json_fallback.ts";
 * assert.equal(describeJsonFallback("not_json"), "not one JSON value: cut as head");
 * ```
 */
export function describeJsonFallback(fallback: JsonFallback): string {
  return DESCRIPTIONS[fallback];
}
