/**
 * The tables of `spillway config check`, made safe for the terminal.
 *
 * @module
 */

import { sanitizeForTerminal } from "../terminal/sanitize.ts";
import { formatTable } from "./_table.ts";

/**
 * Every table of the report passes here. Cells hold outside text (tool and
 * server names, commands, paths, config values): each is made safe for the
 * terminal and kept on one line before the columns are measured.
 */
export function safeTable(rows: readonly (readonly string[])[]): string {
  return formatTable(
    rows.map((row) => row.map((cell) => sanitizeForTerminal(cell, { singleLine: true }))),
  );
}
