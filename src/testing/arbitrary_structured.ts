/**
 * fast-check generators for structured results: an output schema (a JSON
 * Schema object, as a tool lists it) and a value of about a chosen size
 * that conforms to it, for the property tests of the structured cut. The
 * schemas have what real output schemas have: required members, objects
 * that allow no other members (`additionalProperties: false`), typed array
 * items, nested objects, and now and then a constraint no cut can keep
 * (an `enum`, a `minLength`, a `minItems`), so that some cuts cannot match.
 * Strings mix 1- to 4-byte characters, escapes and lone surrogates. fast-
 * check's own generators stay tiny: these build large values from a seed.
 *
 * @module
 */

import fc from "fast-check";
import { seededRandom } from "./seed.ts";

/** A generated schema, a value that conforms to it, and what the schema uses. */
export interface GeneratedStructured {
  /** An object schema. */
  readonly schema: Readonly<Record<string, unknown>>;
  /** An object that conforms to `schema`. */
  readonly value: Readonly<Record<string, unknown>>;
  /** The features the schema has: `required`, `closed`, `items`, `nested`, `bounded`. */
  readonly features: ReadonlySet<string>;
}

/**
 * An object schema and a conforming value of about `bytes` bytes of compact
 * JSON (more or less by a few hundred).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import fc from "fast-check";
 * import { structuredOfAbout } from "./arbitrary_structured.ts";
 * for (const { schema, value } of fc.sample(structuredOfAbout(5_000), { numRuns: 5, seed: 1 })) {
 *   assert.equal(schema.type, "object");
 *   assert.equal(typeof value, "object");
 * }
 * ```
 */
export function structuredOfAbout(bytes: number): fc.Arbitrary<GeneratedStructured> {
  return fc.integer().map((seed) => new Generator(seededRandom(seed)).top(bytes));
}

type Schema = Record<string, unknown>;

const PIECES = [
  "a",
  "b",
  "z",
  " ",
  "é",
  "ß",
  "€",
  "中",
  "🙂",
  "\n",
  '"',
  "\\",
  "\t",
  "\ud800",
  "x",
];

class Generator {
  readonly #random: () => number;
  readonly #features = new Set<string>();

  constructor(random: () => number) {
    this.#random = random;
  }

  top(bytes: number): GeneratedStructured {
    const schema = this.#objectSchema(0);
    const value = this.#value(schema, bytes) as Record<string, unknown>;
    return { schema, value, features: this.#features };
  }

  #int(n: number): number {
    return Math.floor(this.#random() * n);
  }

  #chance(p: number): boolean {
    return this.#random() < p;
  }

  #schema(depth: number): Schema {
    const roll = this.#random();
    if (depth < 3 && roll < 0.25) {
      this.#features.add("nested");
      return this.#objectSchema(depth + 1);
    }
    if (depth < 3 && roll < 0.5) {
      this.#features.add("items");
      const items = this.#schema(depth + 1);
      if (this.#chance(0.1)) {
        this.#features.add("bounded");
        return { type: "array", items, minItems: 1 + this.#int(3) };
      }
      return { type: "array", items };
    }
    if (roll < 0.8) {
      if (this.#chance(0.1)) {
        this.#features.add("bounded");
        return this.#chance(0.5)
          ? { type: "string", enum: [this.#text(300 + this.#int(3000)), "short"] }
          : { type: "string", minLength: 50 + this.#int(500) };
      }
      return { type: "string" };
    }
    if (roll < 0.9) return { type: this.#chance(0.5) ? "integer" : "number" };
    return { type: "boolean" };
  }

  #objectSchema(depth: number): Schema {
    const count = 1 + this.#int(depth === 0 ? 6 : 4);
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (let i = 0; i < count; i++) {
      const key = `k${i}_${this.#int(1000)}`;
      properties[key] = this.#schema(depth);
      if (this.#chance(0.7)) required.push(key);
    }
    const schema: Schema = { type: "object", properties };
    if (required.length > 0) {
      this.#features.add("required");
      schema.required = required;
    }
    if (this.#chance(0.5)) {
      this.#features.add("closed");
      schema.additionalProperties = false;
    }
    return schema;
  }

  #value(schema: Schema, bytes: number): unknown {
    switch (schema.type) {
      case "object": {
        const properties = schema.properties as Record<string, Schema>;
        const required = new Set((schema.required as string[] | undefined) ?? []);
        const keys = Object.keys(properties).filter((key) =>
          required.has(key) || this.#chance(0.6)
        );
        // One member takes most of the bytes now and then: a huge string or list among small ones.
        const big = this.#chance(0.6) ? this.#int(keys.length) : -1;
        const share = bytes / Math.max(1, keys.length);
        const object: Record<string, unknown> = {};
        keys.forEach((key, i) => {
          const size = big < 0 ? share : i === big ? bytes * 0.9 : bytes * 0.1 / keys.length;
          object[key] = this.#value(properties[key] as Schema, size);
        });
        return object;
      }
      case "array": {
        const items = schema.items as Schema;
        const least = (schema.minItems as number | undefined) ?? 0;
        const count = Math.max(least, Math.min(2000, Math.floor(bytes / (30 + this.#int(300)))));
        return Array.from({ length: count }, () => this.#value(items, bytes / Math.max(1, count)));
      }
      case "string": {
        const choices = schema.enum as string[] | undefined;
        if (choices !== undefined) return choices[this.#int(choices.length)];
        const least = (schema.minLength as number | undefined) ?? 0;
        return this.#text(Math.max(least * 4, bytes));
      }
      case "integer":
        return this.#int(2 ** 31) * (this.#chance(0.2) ? -1 : 1);
      case "number":
        return this.#chance(0.5) ? this.#random() * 1e6 : -this.#int(1000) / 7;
      default:
        return this.#chance(0.5);
    }
  }

  /** A string of about `bytes` bytes, of every kind of character. */
  #text(bytes: number): string {
    let text = "";
    const runs = Math.max(1, Math.floor(bytes / 40));
    const plain = this.#chance(0.5);
    for (let i = 0; i < runs && text.length < bytes; i++) {
      const piece = plain ? "x" : (PIECES[this.#int(PIECES.length)] as string);
      text += piece.repeat(1 + this.#int(40));
    }
    return text;
  }
}
