/**
 * Aligned plain-text tables for command output: rows indented two spaces,
 * columns padded to their widest cell and three spaces apart, no trailing
 * spaces. Terminal readers get columns that line up; scripts get lines that
 * split on runs of spaces.
 *
 * @module
 */

/** Options of {@linkcode formatTable}. */
export interface TableOptions {
  /** Spaces before every row. Defaults to `2`. */
  readonly indent?: number;
  /** Spaces between columns. Defaults to `3`. */
  readonly gap?: number;
}

/**
 * Formats `rows` (the first may be a header) as aligned lines, each ending
 * in a newline. Widths count code points, which is right for the names and
 * paths shown here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatTable } from "./_table.ts";
 * assert.equal(formatTable([["a", "bb"], ["ccc", "d"]]), "  a     bb\n  ccc   d\n");
 * ```
 */
export function formatTable(
  rows: readonly (readonly string[])[],
  options: TableOptions = {},
): string {
  const indent = " ".repeat(options.indent ?? 2);
  const gap = " ".repeat(options.gap ?? 3);
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, [...cell].length);
    });
  }
  return rows.map((row) => {
    const cells = row.map((cell, i) =>
      i === row.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - [...cell].length)
    );
    return `${indent}${cells.join(gap)}`.trimEnd() + "\n";
  }).join("");
}
