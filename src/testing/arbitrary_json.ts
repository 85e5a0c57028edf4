/**
 * fast-check generators for JSON texts of a chosen size and shape, for the
 * json cut's property tests: deep nesting, wide objects, huge strings,
 * arrays of objects, a mix, and scalars; compact, pretty-printed or with
 * random whitespace; strings with every kind of character (2-, 3- and
 * 4-byte ones, raw lone surrogates, escapes, escaped surrogate pairs and
 * halves) and numbers of every form. fast-check's own `json()` stays tiny;
 * these build large texts from a seed, so cuts land anywhere in them.
 *
 * Keys are unique within their object, never look like array indexes and
 * never are `…` (the json cut's own note key), so a parsed cut can be
 * compared with the parsed original member by member.
 *
 * @module
 */

import fc from "fast-check";
import { seededRandom } from "./seed.ts";

/** The shapes a generated text has. */
export type JsonShape =
  | "deep"
  | "wide object"
  | "huge string"
  | "array of objects"
  | "mixed"
  | "scalar";

/** How a generated text is spaced. */
export type JsonSpacing = "compact" | "pretty" | "random";

/** Every shape, in a stable order. */
export const JSON_SHAPES: readonly JsonShape[] = [
  "deep",
  "wide object",
  "huge string",
  "array of objects",
  "mixed",
  "scalar",
];

/** A generated JSON text and how it was made. */
export interface GeneratedJson {
  /** One JSON value (surrounding whitespace possible). */
  readonly text: string;
  readonly shape: JsonShape;
  readonly spacing: JsonSpacing;
}

/**
 * A JSON text of about `bytes` UTF-8 bytes (more or less by a few hundred)
 * of a random shape and spacing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import fc from "fast-check";
 * import { jsonTextOfAbout } from "./arbitrary_json.ts";
 * for (const sample of fc.sample(jsonTextOfAbout(20_000), { numRuns: 12, seed: 3 })) {
 *   JSON.parse(sample.text);
 *   assert.ok(sample.shape === "scalar" || sample.text.length > 5_000, sample.shape);
 * }
 * ```
 */
export function jsonTextOfAbout(bytes: number): fc.Arbitrary<GeneratedJson> {
  return fc.record({
    seed: fc.integer(),
    shape: fc.constantFrom(...JSON_SHAPES),
    spacing: fc.constantFrom<JsonSpacing>("compact", "pretty", "random"),
  }).map(({ seed, shape, spacing }) => ({
    text: new JsonWriter(seededRandom(seed), spacing).document(shape, bytes),
    shape,
    spacing,
  }));
}

/** Builds one text, token by token, as it grows. */
class JsonWriter {
  readonly #random: () => number;
  readonly #spacing: JsonSpacing;
  #parts: string[] = [];
  #size = 0;

  constructor(random: () => number, spacing: JsonSpacing) {
    this.#random = random;
    this.#spacing = spacing;
  }

  document(shape: JsonShape, bytes: number): string {
    this.#space(0);
    switch (shape) {
      case "deep":
        this.#deep(bytes, 5 + this.#int(250));
        break;
      case "wide object":
        this.#object(bytes, 1, () => this.#scalarOrSmall(1));
        break;
      case "huge string":
        if (this.#chance(0.5)) this.#string(bytes);
        else this.#object(bytes, 1, () => this.#string(this.#chance(0.2) ? bytes / 2 : 40));
        break;
      case "array of objects":
        this.#array(bytes, 1, () => this.#object(60 + this.#int(400), 2, () => this.#small(3)));
        break;
      case "mixed":
        this.#mixed(bytes, 0);
        break;
      case "scalar":
        this.#scalar();
        // A scalar larger than a limit is a huge string, or one padded with whitespace.
        if (this.#chance(0.5)) this.#put(" ".repeat(this.#int(bytes)));
        break;
    }
    this.#space(0);
    return this.#parts.join("");
  }

  #deep(bytes: number, depth: number): void {
    if (depth === 0) return this.#mixed(bytes, 0);
    const inner = () => this.#deep(bytes - this.#size, depth - 1);
    const siblings = this.#int(3);
    if (this.#chance(0.5)) {
      this.#open("[");
      for (let i = 0; i < siblings; i++) this.#item(i, 0, () => this.#small(1));
      this.#item(siblings, 0, inner);
      for (let i = 0; i < siblings; i++) this.#item(siblings + 1 + i, 0, () => this.#small(1));
      this.#close("]", 0);
    } else {
      this.#open("{");
      const keys = siblings * 2 + 1;
      for (let i = 0; i < keys; i++) {
        this.#member(i, 0, i === siblings ? inner : () => this.#small(1));
      }
      this.#close("}", 0);
    }
  }

  #mixed(bytes: number, depth: number): void {
    const end = this.#size + bytes;
    const roll = this.#random();
    if (depth > 12 || bytes < 60 || (depth > 0 && roll < 0.15)) return this.#small(depth);
    const grow = () =>
      this.#mixed(Math.max(20, (end - this.#size) * this.#random() * 0.6), depth + 1);
    if (roll < 0.55) this.#array(bytes, depth, grow);
    else this.#object(bytes, depth, grow);
  }

  /** An array of items until it holds about `bytes`. */
  #array(bytes: number, depth: number, item: () => void): void {
    const end = this.#size + bytes;
    this.#open("[");
    for (let i = 0; this.#size < end; i++) this.#item(i, depth, item);
    this.#close("]", depth);
  }

  /** An object of members until it holds about `bytes`. */
  #object(bytes: number, depth: number, value: () => void): void {
    const end = this.#size + bytes;
    this.#open("{");
    for (let i = 0; this.#size < end; i++) this.#member(i, depth, value);
    this.#close("}", depth);
  }

  #item(index: number, depth: number, value: () => void): void {
    if (index > 0) this.#put(",");
    this.#space(depth + 1);
    value();
  }

  #member(index: number, depth: number, value: () => void): void {
    if (index > 0) this.#put(",");
    this.#space(depth + 1);
    // Unique, not an array index, never the note key: "k12", "k3_é…" is not made.
    this.#put(`"k${index}${this.#chance(0.3) ? "_" + this.#chars(this.#int(12)) : ""}"`);
    this.#spaceAround(":");
    value();
  }

  #open(bracket: string): void {
    this.#put(bracket);
  }

  #close(bracket: string, depth: number): void {
    this.#space(depth);
    this.#put(bracket);
  }

  #small(depth: number): void {
    const roll = this.#random();
    if (roll < 0.15 && depth < 14) {
      this.#open("[");
      const n = this.#int(4);
      for (let i = 0; i < n; i++) this.#item(i, depth, () => this.#scalar());
      this.#close("]", depth);
    } else if (roll < 0.25 && depth < 14) {
      this.#open("{");
      const n = this.#int(3);
      for (let i = 0; i < n; i++) this.#member(i, depth, () => this.#scalar());
      this.#close("}", depth);
    } else if (roll < 0.35) this.#string(200 + this.#int(3000));
    else this.#scalar();
  }

  #scalarOrSmall(depth: number): void {
    if (this.#chance(0.7)) this.#scalar();
    else this.#small(depth);
  }

  #scalar(): void {
    const roll = this.#random();
    if (roll < 0.35) this.#number();
    else if (roll < 0.45) this.#put(["true", "false", "null"][this.#int(3)]!);
    else this.#string(this.#int(60));
  }

  #number(): void {
    const sign = this.#chance(0.3) ? "-" : "";
    const int = this.#chance(0.2) ? "0" : String(1 + this.#int(10 ** (1 + this.#int(12))));
    const frac = this.#chance(0.3) ? "." + String(this.#int(10 ** (1 + this.#int(6)))) : "";
    const exp = this.#chance(0.2)
      ? ["e", "E"][this.#int(2)]! + ["", "+", "-"][this.#int(3)]! + String(this.#int(300))
      : "";
    this.#put(sign + int + frac + exp);
  }

  /** A string of about `bytes` bytes. */
  #string(bytes: number): void {
    const parts = ['"'];
    let size = 1;
    while (size < bytes) {
      const piece = this.#piece();
      parts.push(piece);
      size += piece.length + (piece.charCodeAt(0) >= 0x80 ? 1 : 0);
    }
    parts.push('"');
    this.#put(parts.join(""));
  }

  /** A few characters of one kind, as they appear between the quotes. */
  #piece(): string {
    const roll = this.#random();
    if (roll < 0.4) return this.#chars(1 + this.#int(20));
    if (roll < 0.5) return String.fromCharCode(0x80 + this.#int(0x780)); // 2 bytes
    if (roll < 0.6) return String.fromCharCode(0x800 + this.#int(0xd000 - 0x800)); // 3 bytes
    if (roll < 0.67) return String.fromCodePoint(0x10000 + this.#int(0xfffff)); // a pair
    if (roll < 0.72) return String.fromCharCode(0xd800 + this.#int(0x800)); // a lone half
    if (roll < 0.82) {
      return ["\\n", '\\"', "\\\\", "\\/", "\\t", "\\b", "\\f", "\\r"][this.#int(8)]!;
    }
    if (roll < 0.9) return "\\u" + this.#int(0x10000).toString(16).padStart(4, "0");
    if (roll < 0.95) return "\\ud83d\\ude00"; // an escaped pair
    return ["\\ud800", "\\udfff", "\\uD834\\uDD1E"][this.#int(3)]!;
  }

  #chars(n: number): string {
    let text = "";
    for (let i = 0; i < n; i++) {
      text += String.fromCharCode(0x20 + this.#int(0x5f)).replace(/["\\]/, "a");
    }
    return text;
  }

  #spaceAround(token: string): void {
    if (this.#spacing === "compact") return this.#put(token);
    if (this.#spacing === "pretty") return this.#put(token + " ");
    this.#put(this.#blank() + token + this.#blank());
  }

  #space(depth: number): void {
    if (this.#spacing === "pretty") this.#put("\n" + "  ".repeat(depth));
    else if (this.#spacing === "random") this.#put(this.#blank());
  }

  #blank(): string {
    let blank = "";
    const n = this.#chance(0.6) ? 0 : this.#int(6);
    for (let i = 0; i < n; i++) blank += [" ", "\n", "\t", "\r"][this.#int(4)];
    return blank;
  }

  #put(text: string): void {
    this.#parts.push(text);
    this.#size += text.length;
  }

  #int(below: number): number {
    return Math.floor(this.#random() * below);
  }

  #chance(p: number): boolean {
    return this.#random() < p;
  }
}
