/**
 * Durations as users write them in config (`"30m"`, `"90s"`, `"1h"`,
 * `"500ms"`, or a TOML number of seconds, as `timeout` takes). `toString()`
 * is exact and round-trips through `parse`: the largest unit that divides
 * the duration evenly.
 *
 * @module
 */

const UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

/** Largest unit first: `toString()` picks the first that divides evenly. */
const DISPLAY_UNITS: readonly (readonly [string, number])[] = [
  ["h", 3_600_000],
  ["m", 60_000],
  ["s", 1_000],
];

const DURATION_PATTERN = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$/;

/** The longest duration a timer can wait (2^31 − 1 ms, about 24.8 days). */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/**
 * A whole number of milliseconds, at most {@linkcode MAX_DURATION_MS}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Duration } from "./duration.ts";
 * assert.equal(Duration.parse("30m").ms, 1_800_000);
 * assert.equal(Duration.parse(90).toString(), "90s");
 * assert.equal(Duration.parse("1.5s").toString(), "1500ms");
 * assert.equal(Duration.parse("120m").toString(), "2h");
 * ```
 */
export class Duration {
  /** The number of milliseconds. */
  readonly ms: number;

  private constructor(ms: number) {
    this.ms = ms;
  }

  /**
   * A duration of exactly `ms` milliseconds.
   *
   * @throws {RangeError} when `ms` is negative, fractional or past {@linkcode MAX_DURATION_MS}
   */
  static fromMs(ms: number): Duration {
    if (!Number.isInteger(ms) || ms < 0) {
      throw new RangeError(`duration must be a whole number of milliseconds, got \`${ms}\``);
    }
    if (ms > MAX_DURATION_MS) {
      throw new RangeError(`duration \`${ms}ms\` is longer than a timer can wait (24.8 days)`);
    }
    return new Duration(ms);
  }

  /**
   * Parses `"30m"`, `"90s"`, `" 1 h "`, `"1.5s"`, `"500ms"` (units
   * case-insensitive, required in text), or a number of seconds.
   *
   * @throws {SyntaxError} for text that is not a duration
   * @throws {RangeError} for a negative number, less than a millisecond's
   *   precision, or longer than a timer can wait
   */
  static parse(value: string | number): Duration {
    if (typeof value === "number") {
      if (!Number.isFinite(value) || value < 0) {
        throw new RangeError(`duration must be a non-negative number of seconds, got \`${value}\``);
      }
      return Duration.#whole(value * 1_000, String(value));
    }
    const match = DURATION_PATTERN.exec(value);
    if (match === null) {
      throw new SyntaxError(
        `invalid duration \`${value}\`: expected a number and a unit, e.g. "30m" or "90s"`,
      );
    }
    const [, digits = "", unitText = ""] = match;
    const unit = UNITS[unitText.toLowerCase()];
    if (unitText === "") {
      throw new SyntaxError(
        `invalid duration \`${value}\`: no unit (expected ms, s, m or h, e.g. "${digits}s")`,
      );
    }
    if (unit === undefined) {
      throw new SyntaxError(
        `invalid duration \`${value}\`: unknown unit \`${unitText}\` (expected ms, s, m or h)`,
      );
    }
    return Duration.#whole(Number(digits) * unit, value);
  }

  static #whole(ms: number, written: string): Duration {
    const rounded = Math.round(ms);
    if (Math.abs(ms - rounded) > 1e-6) {
      throw new RangeError(`invalid duration \`${written}\`: finer than a millisecond`);
    }
    if (rounded > MAX_DURATION_MS) {
      throw new RangeError(
        `invalid duration \`${written}\`: longer than a timer can wait (24.8 days)`,
      );
    }
    return new Duration(rounded);
  }

  /** The exact form: `"30m"`, `"1h"`, `"90s"`, `"1500ms"`. */
  toString(): string {
    for (const [unit, size] of DISPLAY_UNITS) {
      if (this.ms >= size && this.ms % size === 0) return `${this.ms / size}${unit}`;
    }
    return `${this.ms}ms`;
  }
}
