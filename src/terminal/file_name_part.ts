/**
 * A piece of a file name made from an outside value: a tool name or a call
 * id, both chosen by a model or an MCP server. Such a value may hold `/`,
 * `..`, control characters or thousands of characters; the files spillway
 * names after it (edit files, full-result files) must stay inside their
 * folder, be visible, and fit the file system's 255-byte name limit.
 *
 * @module
 */

/** The longest part returned, in characters (all ASCII): room for a prefix, suffix and counter. */
export const MAX_FILE_NAME_PART = 64;

/**
 * `text` as a short, safe file-name part: every character other than ASCII
 * letters, digits, `.`, `_` and `-` becomes `_`, a leading `.` too (no
 * hidden files, no `..`), cut to {@linkcode MAX_FILE_NAME_PART}
 * characters; `_` when `text` is empty. Names that are already safe and
 * short come back unchanged.
 *
 * @param text the outside value
 * @returns a non-empty string of at most {@linkcode MAX_FILE_NAME_PART} ASCII characters
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fileNamePart } from "./file_name_part.ts";
 * assert.equal(fileNamePart("cargo_test"), "cargo_test");
 * assert.equal(fileNamePart("../../etc/passwd"), "_._.._etc_passwd");
 * assert.equal(fileNamePart("a".repeat(300)).length, 64);
 * ```
 */
export function fileNamePart(text: string): string {
  // One `_` per UTF-16 code unit replaced: the cut can come first.
  const safe = text.slice(0, MAX_FILE_NAME_PART)
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^\./, "_");
  return safe === "" ? "_" : safe;
}
