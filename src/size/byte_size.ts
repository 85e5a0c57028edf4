/**
 * Byte sizes as users write them in config and on the command line
 * (`"256KB"`, `"1MB"`, `1048576`), with binary units. `toString()` is exact
 * and round-trips through `parse`; `human()` is the short, truncated form the
 * terminal and the truncation marker show.
 *
 * @module
 */

const KB = 1024;
const MB = 1024 * KB;
const GB = 1024 * MB;

const UNITS: Readonly<Record<string, number>> = {
  "": 1,
  b: 1,
  k: KB,
  kb: KB,
  kib: KB,
  m: MB,
  mb: MB,
  mib: MB,
  g: GB,
  gb: GB,
  gib: GB,
};

/** Largest unit first: `toString()` and `human()` pick the first that fits. */
const DISPLAY_UNITS: readonly (readonly [string, number])[] = [["GB", GB], ["MB", MB], ["KB", KB]];

const SIZE_PATTERN = /^\s*(\d+)\s*([A-Za-z]*)\s*$/;

/**
 * A non-negative whole number of bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ByteSize } from "./byte_size.ts";
 * assert.equal(ByteSize.parse("256KB").bytes, 262144);
 * assert.equal(ByteSize.parse("256KB").toString(), "256KB");
 * assert.equal(ByteSize.fromBytes(10900000).human(), "10.3 MB");
 * ```
 */
export class ByteSize {
  /** The number of bytes. */
  readonly bytes: number;

  private constructor(bytes: number) {
    this.bytes = bytes;
  }

  /**
   * A size of exactly `bytes` bytes.
   *
   * @throws {RangeError} when `bytes` is negative, fractional or past the safe integer range
   */
  static fromBytes(bytes: number): ByteSize {
    if (!Number.isSafeInteger(bytes)) {
      throw new RangeError(`size must be a whole number of bytes, got \`${bytes}\``);
    }
    if (bytes < 0) throw new RangeError(`size must be non-negative, got \`${bytes}\``);
    return new ByteSize(bytes);
  }

  /**
   * Parses `"512"`, `"1.5"`-free sizes such as `"256KB"`, `" 1 mib "`, `"2g"`,
   * or a TOML integer (a byte count). Units are binary and case-insensitive.
   *
   * @throws {SyntaxError} for text that is not a size
   * @throws {RangeError} for negative integers and sizes past the safe integer range
   */
  static parse(value: string | number): ByteSize {
    if (typeof value === "number") return ByteSize.fromBytes(value);
    const match = SIZE_PATTERN.exec(value);
    if (match === null) throw new SyntaxError(describeUnparsable(value));
    const [, digits = "", unitText = ""] = match;
    const count = Number(digits);
    if (!Number.isSafeInteger(count)) {
      throw new RangeError(`invalid size \`${value}\`: byte count out of range`);
    }
    const unit = unitText.toLowerCase();
    const multiplier = UNITS[unit];
    if (multiplier === undefined) {
      throw new SyntaxError(
        `invalid size \`${value}\`: unknown unit \`${unit}\` (expected B, KB, MB, or GB)`,
      );
    }
    const bytes = count * multiplier;
    if (!Number.isSafeInteger(bytes)) {
      throw new RangeError(`invalid size \`${value}\`: value overflows`);
    }
    return new ByteSize(bytes);
  }

  /** Exact and round-trippable: `1MB`, `256KB`, `1500`, `0`. */
  toString(): string {
    if (this.bytes === 0) return "0";
    for (const [name, unit] of DISPLAY_UNITS) {
      if (this.bytes % unit === 0) return `${this.bytes / unit}${name}`;
    }
    return String(this.bytes);
  }

  /** One decimal, truncated, binary units: `10.3 MB`, `1.5 KB`, `512 B`. */
  human(): string {
    for (const [name, unit] of DISPLAY_UNITS) {
      if (this.bytes >= unit) {
        const whole = Math.floor(this.bytes / unit);
        const tenths = Math.floor(((this.bytes % unit) * 10) / unit);
        return `${whole}.${tenths} ${name}`;
      }
    }
    return `${this.bytes} B`;
  }
}

/** Says what is wrong with text that does not match `<count><unit>`. */
function describeUnparsable(value: string): string {
  const trimmed = value.trim();
  if (trimmed.startsWith("-")) return `size must be non-negative, got \`${value}\``;
  if (/^\d+\.\d/.test(trimmed)) {
    return `invalid size \`${value}\`: expected a whole byte count (fractions are not supported; use a smaller unit)`;
  }
  if (/^\d/.test(trimmed)) {
    const unit = trimmed.replace(/^\d+\s*/, "").toLowerCase();
    return `invalid size \`${value}\`: unknown unit \`${unit}\` (expected B, KB, MB, or GB)`;
  }
  return `invalid size \`${value}\`: expected a leading byte count`;
}
