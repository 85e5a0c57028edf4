/**
 * Finds the line a key path is written on, so config errors can point at it
 * (`config.toml:7: unknown key …`). smol-toml reports positions only for
 * syntax errors; for validation errors a cheap line scan is enough: table
 * headers set the current table, `key = value` lines add their dotted key.
 * Keys written inside inline tables are not indexed; their messages simply
 * carry no line.
 *
 * @module
 */

import { pathKey, scanKeyPath } from "./_key_path.ts";

/**
 * Maps every key path (and each prefix of it) written in `text` to the
 * 1-based line where it first appears.
 */
export function indexKeyLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  let table: string[] = [];
  let openQuote: string | undefined;
  const rows = text.split("\n");
  for (let n = 0; n < rows.length; n++) {
    const row = rows[n] ?? "";
    if (openQuote !== undefined) {
      // Inside a multi-line string: nothing here is a key.
      if (countOf(row, openQuote) % 2 === 1) openQuote = undefined;
      continue;
    }
    const trimmed = row.trimStart();
    const offset = row.length - trimmed.length;
    let path: string[] | undefined;
    if (trimmed.startsWith("[")) {
      const headerStart = trimmed.startsWith("[[") ? 2 : 1;
      const scanned = scanKeyPath(row, offset + headerStart);
      if (scanned !== undefined) {
        table = scanned.segments;
        path = table;
      }
    } else {
      const scanned = scanKeyPath(row, offset);
      if (scanned !== undefined && row.slice(scanned.end).trimStart().startsWith("=")) {
        path = [...table, ...scanned.segments];
        const valueText = row.slice(row.indexOf("=", scanned.end) + 1);
        for (const quote of ['"""', "'''"]) {
          if (countOf(valueText, quote) % 2 === 1) openQuote = quote;
        }
      }
    }
    if (path === undefined) continue;
    for (let len = 1; len <= path.length; len++) {
      const key = pathKey(path.slice(0, len));
      if (!lines.has(key)) lines.set(key, n + 1);
    }
  }
  return lines;
}

function countOf(text: string, needle: string): number {
  let count = 0;
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) count++;
  return count;
}
