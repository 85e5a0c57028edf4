/**
 * The per-tool `size_threshold`: `"unlimited"` or a size of at least 1KB.
 * Smaller values are rejected when the config loads (this also catches `0`),
 * because a cap that small leaves nothing but the marker.
 *
 * @module
 */

import { ByteSize } from "./byte_size.ts";

/** The smallest threshold accepted: 1KB. */
export const MIN_SIZE_THRESHOLD_BYTES = 1024;

/**
 * A per-tool response size limit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SizeThreshold } from "./size_threshold.ts";
 * assert.equal(SizeThreshold.parse("1MB").bytes?.bytes, 1048576);
 * assert.equal(SizeThreshold.parse("unlimited").isUnlimited, true);
 * assert.throws(() => SizeThreshold.parse("512"), RangeError);
 * ```
 */
export class SizeThreshold {
  /** No limit: only the batch ceiling applies. */
  static readonly UNLIMITED: SizeThreshold = new SizeThreshold(undefined);
  /** The built-in default, 256KB. */
  static readonly DEFAULT: SizeThreshold = new SizeThreshold(ByteSize.fromBytes(256 * 1024));

  /** The limit, absent when unlimited. */
  readonly bytes: ByteSize | undefined;

  private constructor(bytes: ByteSize | undefined) {
    this.bytes = bytes;
  }

  /** Whether there is no limit. */
  get isUnlimited(): boolean {
    return this.bytes === undefined;
  }

  /**
   * Parses `"unlimited"`, a size string (`"512KB"`) or a byte count.
   *
   * @throws {RangeError} below the 1KB minimum, naming the value and the ways out
   * @throws {SyntaxError} for text that is not a size (ByteSize wording)
   */
  static parse(value: string | number): SizeThreshold {
    if (typeof value === "string" && value.trim().toLowerCase() === "unlimited") {
      return SizeThreshold.UNLIMITED;
    }
    const size = ByteSize.parse(value);
    if (size.bytes < MIN_SIZE_THRESHOLD_BYTES) {
      throw new RangeError(
        `size_threshold \`${value}\` is below the 1KB minimum: use "unlimited" for no limit, ` +
          `or result = "skip" for no result at all`,
      );
    }
    return new SizeThreshold(size);
  }

  /** `"unlimited"` or the exact size (`"256KB"`). */
  toString(): string {
    return this.bytes === undefined ? "unlimited" : this.bytes.toString();
  }
}
