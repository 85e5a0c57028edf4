/**
 * Spells a parsed TOML value back as TOML for error messages
 * (`run = "sometimes"`, `size_threshold = 512`, `command = ["cargo"]`), so a
 * message shows the value the way the user wrote it. Long values are
 * shortened: a message should name the value, not reprint a page of it.
 *
 * @module
 */

import { formatKeyPath } from "./_key_path.ts";

const MAX_SHOWN_CHARS = 80;

/** The TOML spelling of `value`, shortened past 80 characters. */
export function formatValue(value: unknown): string {
  const text = spell(value);
  if (text.length <= MAX_SHOWN_CHARS) return text;
  return `${text.slice(0, MAX_SHOWN_CHARS - 1)}…`;
}

function spell(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "nan";
    if (value === Infinity) return "inf";
    if (value === -Infinity) return "-inf";
    return String(value);
  }
  if (typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return `[${value.map(spell).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).map(([k, v]) => `${formatKeyPath([k])} = ${spell(v)}`);
    return entries.length === 0 ? "{}" : `{ ${entries.join(", ")} }`;
  }
  return String(value);
}
