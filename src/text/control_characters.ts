/**
 * The characters that change how the text around them is shown instead of
 * being shown themselves: C0 and C1 controls and DEL (a terminal acts on
 * them), the line and paragraph separators (line breaks to JavaScript and
 * some viewers), and the bidi controls (they reorder the text around them:
 * "Trojan Source"). Everything that shows outside text escapes them: the
 * terminal (`src/terminal/sanitize.ts`) and the responses that quote a model's
 * own arguments back to it (`src/machines/synthesized_reviews.ts`). One list,
 * here, so the two cannot drift apart. Pure: no I/O.
 *
 * @module
 */

/** C0 controls (tab and newline included), DEL and the C1 controls. */
const C0_C1 = "\\u0000-\\u001f\\u007f-\\u009f";
/** LINE SEPARATOR and PARAGRAPH SEPARATOR. */
const LINE_SEPARATORS = "\\u2028\\u2029";
/** Bidi controls: ALM, LRM, RLM, LRE/RLE/PDF/LRO/RLO, LRI/RLI/FSI/PDI. */
const BIDI = "\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069";

/** Options of {@linkcode controlCharacters}. */
export interface ControlCharactersOptions {
  /**
   * Controls left out of the pattern, kept as they are (`"\t\n"` for text a
   * terminal lays out). Default: none.
   */
  readonly keep?: string;
  /** Whether LINE SEPARATOR and PARAGRAPH SEPARATOR are matched too. Default false. */
  readonly lineSeparators?: boolean;
}

/**
 * A global pattern matching each control character (C0, DEL, C1, bidi, and
 * with `lineSeparators` U+2028 and U+2029), except those in `keep`.
 *
 * @param options what to leave out, and whether to match the line separators
 * @returns a new `RegExp` with the `g` flag, for `String.prototype.replace`
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { controlCharacters, unicodeEscape } from "./control_characters.ts";
 * assert.equal("a\tb\x1b\u202e".replace(controlCharacters({ keep: "\t" }), unicodeEscape), "a\tb\\u001b\\u202e");
 * assert.equal("a\u2028b".replace(controlCharacters(), unicodeEscape), "a\u2028b");
 * assert.equal("a\u2028b".replace(controlCharacters({ lineSeparators: true }), unicodeEscape), "a\\u2028b");
 * ```
 */
export function controlCharacters(options: ControlCharactersOptions = {}): RegExp {
  const all = `[${C0_C1}${options.lineSeparators ? LINE_SEPARATORS : ""}${BIDI}]`;
  const keep = [...(options.keep ?? "")].map(unicodeEscape).join("");
  // Set subtraction (the `v` flag): the classes above, minus what is kept.
  return new RegExp(keep === "" ? all : `[${all}--[${keep}]]`, "gv");
}

/**
 * `c` (one UTF-16 unit) as a `\u202e`-style escape: how JSON and JavaScript
 * write it, so a quote stays valid JSON.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unicodeEscape } from "./control_characters.ts";
 * assert.equal(unicodeEscape("\x1b"), "\\u001b");
 * ```
 */
export function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
