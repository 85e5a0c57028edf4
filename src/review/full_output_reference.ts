/**
 * The line a cut text carries when its tool spills (`spill = true`): right
 * after the marker line, it tells the assistant where the whole output is
 * and how to read it, inside the limit like the marker.
 *
 * @module
 */

/** The full output a spilled response refers to. */
export interface SpilledOutput {
  /** Its blob reference, `sha256:<hex>`: the `ref` argument of `read_tool_output`. */
  readonly ref: string;
  /** Its exact size in UTF-8 bytes. */
  readonly bytes: number;
}

/**
 * The reference line (no newline).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fullOutputReference } from "./full_output_reference.ts";
 * assert.equal(
 *   fullOutputReference({ ref: "sha256:ab12", bytes: 3250586 }),
 *   '... [full output: read_tool_output ref="sha256:ab12" (3250586 bytes)]',
 * );
 * ```
 */
export function fullOutputReference(output: SpilledOutput): string {
  return `... [full output: read_tool_output ref="${output.ref}" (${output.bytes} bytes)]`;
}
