/**
 * The terminal (`sanitizeForTerminal`) and the responses that quote a
 * model's invalid arguments back to it escape the characters of one list
 * (`src/text/control_characters.ts`): the terminal keeps tab and newline and
 * leaves the line separators, the quote escapes all of them. Checked unit
 * by unit against the classes written out as numbers here.
 *
 * @module
 */

import assert from "node:assert/strict";
import { sanitizeForTerminal } from "../src/terminal/sanitize.ts";
import { invalidArgumentsReview } from "../src/machines/synthesized_reviews.ts";
import { unicodeEscape } from "../src/text/control_characters.ts";

const C0_C1 = [...range(0x00, 0x1f), ...range(0x7f, 0x9f)];
const BIDI = [0x061c, 0x200e, 0x200f, ...range(0x202a, 0x202e), ...range(0x2066, 0x2069)];
const LINE_SEPARATORS = [0x2028, 0x2029];

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

Deno.test("the terminal and the quoted arguments escape the one list", () => {
  const quoted = (text: string) =>
    invalidArgumentsReview({ id: "c", name: "t", arguments: {}, invalidArguments: text })
      .response.content.split("\n")[0]!.replace(/^[^:]*: /, "");
  const terminal = new Set(C0_C1.concat(BIDI).filter((u) => u !== 0x09 && u !== 0x0a));
  const quote = new Set([...C0_C1, ...LINE_SEPARATORS, ...BIDI]);
  // Every unit for the terminal; for the quote (a JSON parse each), every
  // class member, its neighbours on both sides, and a spread of the rest.
  const edges = new Set([...quote].flatMap((u) => [u - 1, u, u + 1]));
  for (let unit = 0; unit <= 0xffff; unit++) {
    if (unit >= 0xd800 && unit <= 0xdfff) continue; // JSON.stringify escapes lone surrogates itself
    const c = String.fromCharCode(unit);
    const shown = sanitizeForTerminal(`a${c}b`);
    assert.equal(shown === `a${c}b`, !terminal.has(unit), `terminal, U+${unit.toString(16)}`);
    if (!edges.has(unit) && unit % 97 !== 0) continue;
    // `"` and `\` are JSON's own escapes: the quote reads back either way.
    if (c === '"' || c === "\\") continue;
    const expected = quote.has(unit)
      ? `"[${unit <= 0x1f ? JSON.stringify(c).slice(1, -1) : unicodeEscape(c)}"`
      : `"[${c}"`;
    assert.equal(quoted(`[${c}`), expected, `quote, U+${unit.toString(16)}`);
  }
});
