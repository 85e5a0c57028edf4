/**
 * Cutting a recorded response again for a `cap` compaction. A recorded
 * response may already be a cut (its marker line at the end, the start or
 * in the middle, by its tool's truncation strategy, maybe followed by a
 * full-output reference line); cutting it again must not add a second
 * marker, must keep the same end(s) and the reference, and the one marker
 * must keep naming the size the tool returned, which only the old marker
 * still knows. A json cut (`truncation = "json"` or `"auto"`: the kept part
 * before an end marker is one JSON value) is cut again as JSON, so that it
 * stays JSON; the recut writes no notes of its own, since the counts it
 * could give would be of the recorded cut, not of what the tool returned
 * (the first cut's notes stay wherever the recut keeps their container
 * whole; the marker names the sizes).
 *
 * @module
 */

import { capText, truncationMarker, utf8Length } from "../size/cap_text.ts";
import { cutJsonValue } from "../size/cut_json_value.ts";
import { JsonScanner } from "../size/json_scanner.ts";
import type { TextTruncationStrategy as TruncationStrategy } from "../size/truncation.ts";

const MARKER = String.raw`\.\.\. \[truncated, (\d+)(?:\.(\d))? (B|KB|MB|GB) → [^\]\n]*\]`;
const REFERENCE = String.raw`(?:\n(\.\.\. \[full output: [^\n]*\]))?`;
const AT_END = new RegExp(String.raw`\n${MARKER}${REFERENCE}$`);
const AT_START = new RegExp(String.raw`^${MARKER}${REFERENCE}\n`);
const IN_MIDDLE = new RegExp(String.raw`\n${MARKER}${REFERENCE}\n`, "y");
const UNITS: Readonly<Record<string, number>> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };
/** Longer than any marker and reference line: the ends are searched only this far. */
const SEARCH_CHARS = 300;

/** A recorded cut taken apart. */
interface RecordedCut {
  readonly strategy: TruncationStrategy;
  readonly head: string;
  readonly tail: string;
  readonly original: number;
  readonly reference: string | undefined;
}

/**
 * Caps `text` at `capBytes` (marker included) like `capText`, but when
 * `text` is already a cut, cuts its kept part(s) again the same way and
 * keeps the size the old marker names. A text that fits comes back unchanged.
 */
export function recut(text: string, capBytes: number): string {
  const bytes = utf8Length(text);
  if (bytes <= capBytes) return text;
  const cut = recordedCut(text);
  if (cut === undefined) return capText(text, capBytes).text;
  const headBytes = utf8Length(cut.head);
  const tailBytes = utf8Length(cut.tail);
  // The split the kept bytes had, so that both ends shrink alike.
  const headPercent = Math.min(
    99,
    Math.max(1, Math.round(100 * headBytes / (headBytes + tailBytes || 1))),
  );
  // The old marker's size is rounded down; never below what is recorded now.
  const original = Math.max(cut.original, bytes + 1);
  if (cut.strategy === "head") {
    const json = recutJson(cut.head, original, capBytes, cut.reference);
    if (json !== undefined) return json;
  }
  const window = { head: cut.head, tail: cut.tail, bytes: original };
  return capText(window, capBytes, {
    strategy: cut.strategy,
    headPercent,
    reference: cut.reference,
  }).text;
}

/**
 * `head` cut again as JSON with the marker (naming `original`) and the
 * reference line after it, when `head` is a json cut's kept value (an
 * object, an array or a string: a head cut of other text seldom is one)
 * and a JSON cut of it fits; else `undefined`, and it is cut as a head.
 */
function recutJson(
  head: string,
  original: number,
  capBytes: number,
  reference: string | undefined,
): string | undefined {
  const first = /\S/.exec(head.slice(0, 64))?.[0];
  if (first !== "{" && first !== "[" && first !== '"') return undefined;
  if (JsonScanner.scan(head, head.length).value === undefined) return undefined;
  const markerPart = "\n" + truncationMarker(original, capBytes) +
    (reference === undefined ? "" : "\n" + reference);
  const room = capBytes - utf8Length(markerPart);
  if (room <= 0) return undefined;
  const value = cutJsonValue(head, room, { notes: false });
  return value.kind === "cut" ? value.text + markerPart : undefined;
}

function recordedCut(text: string): RecordedCut | undefined {
  const endStart = Math.max(0, text.length - SEARCH_CHARS);
  const atEnd = AT_END.exec(text.slice(endStart));
  if (atEnd !== null) {
    return parts("head", atEnd, text.slice(0, endStart + atEnd.index), "");
  }
  const atStart = AT_START.exec(text.slice(0, SEARCH_CHARS));
  if (atStart !== null) return parts("tail", atStart, "", text.slice(atStart[0].length));
  for (
    let at = text.indexOf("\n... [truncated, ");
    at >= 0;
    at = text.indexOf("\n... [truncated, ", at + 1)
  ) {
    IN_MIDDLE.lastIndex = at;
    const middle = IN_MIDDLE.exec(text);
    if (middle !== null) {
      return parts("head_tail", middle, text.slice(0, at), text.slice(at + middle[0].length));
    }
  }
  return undefined;
}

function parts(
  strategy: TruncationStrategy,
  match: RegExpExecArray,
  head: string,
  tail: string,
): RecordedCut {
  const [, units = "0", tenths = "0", unit = "B", reference] = match;
  // The smallest byte count whose human() reads as the old marker's size.
  const original = Math.ceil((Number(units) + Number(tenths) / 10) * (UNITS[unit] ?? 1));
  return { strategy, head, tail, original, reference };
}
