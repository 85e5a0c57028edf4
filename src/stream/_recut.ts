/**
 * Cutting a recorded response again for a `cap` compaction. A recorded
 * response may already end in a truncation marker (it was cut when it was
 * recorded); cutting it again must not add a second marker, and the one
 * marker must keep naming the size the tool returned, which only the old
 * marker still knows.
 *
 * @module
 */

import { capText, truncationMarker, utf8Length } from "../size/cap_text.ts";

/** A marker at the very end of a text: `\n... [truncated, 3.1 MB → 256.0 KB]`. */
const MARKER_AT_END = /\n\.\.\. \[truncated, (\d+)(?:\.(\d))? (B|KB|MB|GB) → [^\]\n]*\]$/;
const UNITS: Readonly<Record<string, number>> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };
/** Longer than any marker: the marker is looked for only in this tail. */
const MARKER_SEARCH_CHARS = 80;

/**
 * Caps `text` at `capBytes` (marker included) like `capText`, but when
 * `text` already ends in a marker, cuts the text before it and keeps the
 * size the old marker names. A text that fits comes back unchanged.
 */
export function recut(text: string, capBytes: number): string {
  if (utf8Length(text) <= capBytes) return text;
  const tailStart = Math.max(0, text.length - MARKER_SEARCH_CHARS);
  const found = MARKER_AT_END.exec(text.slice(tailStart));
  if (found === null) return capText(text, capBytes).text;
  const [whole, units = "0", tenths = "0", unit = "B"] = found;
  // The smallest byte count whose human() reads as the old marker's size.
  const original = Math.ceil((Number(units) + Number(tenths) / 10) * (UNITS[unit] ?? 1));
  const marker = "\n" + truncationMarker(original, capBytes);
  const head = text.slice(0, text.length - whole.length);
  const budget = capBytes - utf8Length(marker);
  if (budget < 0) return capText(text, capBytes).text;
  const { read } = new TextEncoder().encodeInto(head, new Uint8Array(budget));
  return head.slice(0, read) + marker;
}
