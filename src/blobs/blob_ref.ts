/**
 * The reference by which a spilled tool output is known: `sha256:` and the
 * 64 lowercase hex digits of the SHA-256 of its UTF-8 bytes. It is what the
 * capped text names, what `read_tool_output` takes, and what
 * `conversation gc` looks for in streams.
 *
 * @module
 */

/** A blob reference, `sha256:<64 hex digits>`. */
export type BlobRef = `sha256:${string}`;

const EXACT = /^sha256:[0-9a-f]{64}$/;
const ANYWHERE = /sha256:[0-9a-f]{64}/g;

/**
 * Whether `text` is a blob reference.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isBlobRef } from "./blob_ref.ts";
 * assert.ok(isBlobRef("sha256:" + "ab".repeat(32)));
 * assert.ok(!isBlobRef("sha256:AB"));
 * ```
 */
export function isBlobRef(text: string): text is BlobRef {
  return EXACT.test(text);
}

/** The hex digest of a reference. */
export function blobDigest(ref: BlobRef): string {
  return ref.slice("sha256:".length);
}

/**
 * Every blob reference that occurs in `text` (with repeats).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { blobRefsIn } from "./blob_ref.ts";
 * const ref = "sha256:" + "0".repeat(64);
 * assert.deepEqual(blobRefsIn(`see ${ref}.`), [ref]);
 * ```
 */
export function blobRefsIn(text: string): BlobRef[] {
  return (text.match(ANYWHERE) ?? []) as BlobRef[];
}
