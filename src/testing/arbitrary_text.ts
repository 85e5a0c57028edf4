/**
 * fast-check generators for texts of a chosen UTF-8 size, built from one
 * class of characters: ASCII, 2-, 3- or 4-byte characters, or raw UTF-16
 * code units (lone surrogates included), or a mix. fast-check's own string
 * generators stay tiny whatever `maxLength` says, and `unit: "binary"` never
 * yields a lone surrogate: these build large texts cheaply by repeating a
 * random pattern between random edges, so cuts land anywhere in it.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import fc from "fast-check";

/** The character classes a generated text is made of. */
export type TextClass = "ascii" | "2-byte" | "3-byte" | "4-byte" | "utf-16 units" | "mixed";

const ascii = fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c));
const twoByte = fc.integer({ min: 0x80, max: 0x7ff }).map((c) => String.fromCharCode(c));
const threeByte = fc.integer({ min: 0x800, max: 0xffff - 0x800 })
  .map((c) => String.fromCharCode(c >= 0xd800 ? c + 0x800 : c));
const fourByte = fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c));
// Any code unit, with surrogates made common so that pairs and lone halves both occur.
const rawUnit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }),
  fc.integer({ min: 0xd800, max: 0xdfff }),
).map((c) => String.fromCharCode(c));

const CHARS: Record<TextClass, fc.Arbitrary<string>> = {
  "ascii": ascii,
  "2-byte": twoByte,
  "3-byte": threeByte,
  "4-byte": fourByte,
  "utf-16 units": rawUnit,
  "mixed": fc.oneof(ascii, twoByte, threeByte, fourByte, rawUnit),
};

/** Every class, in a stable order. */
export const TEXT_CLASSES: readonly TextClass[] = Object.keys(CHARS) as TextClass[];

/** A generated text and how it was made (for counting what the cases reached). */
export interface GeneratedText {
  /** The text. */
  readonly text: string;
  /** The class its characters come from. */
  readonly textClass: TextClass;
}

/**
 * A text of about `bytes` UTF-8 bytes (within one pattern's length) from
 * characters of one random class. `bytes = 0` gives the empty string.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import fc from "fast-check";
 * import { textOfAbout } from "./arbitrary_text.ts";
 * const [sample] = fc.sample(textOfAbout(100_000), { numRuns: 1, seed: 1 });
 * assert.ok(sample!.text.length > 20_000);
 * ```
 */
export function textOfAbout(bytes: number): fc.Arbitrary<GeneratedText> {
  return fc.constantFrom(...TEXT_CLASSES).chain((textClass) => {
    const chars = CHARS[textClass];
    return fc.record({
      start: fc.array(chars, { maxLength: 40 }),
      pattern: fc.array(chars, { minLength: 1, maxLength: 97 }),
      end: fc.array(chars, { maxLength: 40 }),
    }).map(({ start, pattern, end }) => ({
      text: bytes === 0 ? "" : build(start.join(""), pattern.join(""), end.join(""), bytes),
      textClass,
    }));
  });
}

function build(start: string, pattern: string, end: string, bytes: number): string {
  const edges = Buffer.byteLength(start + end, "utf8");
  const patternBytes = Buffer.byteLength(pattern, "utf8");
  const repeats = Math.max(0, Math.round((bytes - edges) / patternBytes));
  return start + pattern.repeat(repeats) + end;
}
