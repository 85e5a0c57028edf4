/**
 * One entry for every strategy: a text is cut the way its tool's
 * `truncation` says, by `capText` (`head`, `tail`, `head_tail`) or by
 * `capJson` (`json`, `auto`). Both caps cut through here.
 *
 * @module
 */

import { capJson, type CapJsonResult } from "./cap_json.ts";
import { capText } from "./cap_text.ts";
import type { TextWindow } from "./text_window.ts";
import { isJsonStrategy, type Truncation } from "./truncation.ts";

/** How {@linkcode cutText} cuts; every field is optional. */
export interface CutTextOptions extends Partial<Truncation> {
  /** A line right after the marker line, inside the limit. Default none. */
  readonly reference?: string | undefined;
}

/**
 * Caps `input` at `capBytes` UTF-8 bytes, marker included, with the
 * strategy of `options` (default `head`). A json cut that fell back to the
 * head says why in `fallback`.
 *
 * @throws {RangeError} as `capText` and `capJson` do
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cutText } from "./cut_text.ts";
 * const text = JSON.stringify({ log: "x".repeat(3000) });
 * const cut = cutText(text, 1024, { strategy: "json" });
 * assert.ok(JSON.parse(cut.text.slice(0, cut.text.lastIndexOf("\n"))).log.endsWith(" more bytes"));
 * assert.ok(cutText(text, 1024, { strategy: "tail" }).text.endsWith('x"}'));
 * ```
 */
export function cutText(
  input: string | TextWindow,
  capBytes: number,
  options: CutTextOptions = {},
): CapJsonResult {
  const { strategy, headPercent, reference } = options;
  if (isJsonStrategy(strategy)) return capJson(input, capBytes, { strategy, reference });
  return capText(input, capBytes, { strategy, headPercent, reference });
}
