/**
 * Display bounds for the terminal: one line of tool output can be 10 MB
 * without a newline, and writing it whole floods the terminal and its
 * scrollback. Lines are cut for display, at a character boundary, with a
 * visible count of what was left out; the full text stays where it was
 * recorded or saved.
 *
 * @module
 */

import { utf8Length } from "../size/cap_text.ts";

/** The most of one line shown on the terminal, in UTF-8 bytes. */
export const DISPLAY_LINE_BYTES = 1024;

const encoder = new TextEncoder();

/**
 * `line` cut to at most `maxBytes` UTF-8 bytes for display, followed by
 * `… N more bytes` when anything was left out. Only the kept head is
 * encoded, so a 100 MB line costs one native length pass.
 *
 * @param maxBytes defaults to {@linkcode DISPLAY_LINE_BYTES}
 * @param beyond bytes of the same line that `line` does not hold (a text
 *   too large to hold keeps only its head in memory), counted in the note
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { boundLine } from "./terminal_line.ts";
 * assert.equal(boundLine("x".repeat(10), 4), "xxxx… 6 more bytes");
 * assert.equal(boundLine("short", 4096), "short");
 * assert.equal(boundLine("x".repeat(10), 4, 90), "xxxx… 96 more bytes");
 * ```
 */
export function boundLine(
  line: string,
  maxBytes: number = DISPLAY_LINE_BYTES,
  beyond = 0,
): string {
  // Short in UTF-16 units means short in bytes too (at most 3 bytes a unit).
  if (beyond === 0 && line.length * 3 <= maxBytes) return line;
  const bytes = utf8Length(line);
  if (bytes <= maxBytes) return beyond === 0 ? line : `${line}… ${beyond} more bytes`;
  const { read, written } = encoder.encodeInto(line, new Uint8Array(maxBytes));
  return `${line.slice(0, read)}… ${bytes - written + beyond} more bytes`;
}
