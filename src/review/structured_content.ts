/**
 * A result's `structuredContent` as spillway knows it: identified by the
 * size and digest of its compact JSON text, the way recorded and delivered
 * results are compared, and in memory the value itself. The execution
 * service identifies what a tool returned; the caps identify what they cut.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { utf8Length } from "../size/cap_text.ts";
import type { StructuredContentInfo } from "./content_block.ts";

/**
 * The {@linkcode StructuredContentInfo} of a value whose compact JSON is
 * `json`, carrying `value` (and `mirrored`) when given.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { structuredContentInfo } from "./structured_content.ts";
 * const info = structuredContentInfo('{"a":1}');
 * assert.equal(info.bytes, 7);
 * assert.match(info.digest, /^sha256:[0-9a-f]{64}$/);
 * assert.equal(structuredContentInfo('{"a":1}', { value: { a: 1 }, mirrored: true }).mirrored, true);
 * ```
 */
export function structuredContentInfo(
  json: string,
  options: {
    /** The value whose JSON `json` is. Default: none (identified only). */
    readonly value?: Readonly<Record<string, unknown>> | undefined;
    /** Whether the response's text is its serialization. Default `false`. */
    readonly mirrored?: boolean | undefined;
  } = {},
): StructuredContentInfo {
  const info = {
    bytes: utf8Length(json),
    digest: `sha256:${createHash("sha256").update(json).digest("hex")}`,
  };
  const { value } = options;
  if (value === undefined) return info;
  return options.mirrored === true ? { ...info, value, mirrored: true } : { ...info, value };
}
