/**
 * TOML dotted key paths (`conversation.tools.'*'.run`): reading them from
 * `--cfg` assignments and config lines, and spelling them back in messages.
 * Messages quote a segment only when TOML needs it, so the path a user reads
 * in an error is one they can paste back into a file or a `--cfg` flag.
 *
 * @module
 */

const BARE_SEGMENT = /^[A-Za-z0-9_-]+$/;
const BARE_CHAR = /[A-Za-z0-9_-]/;

/** A dotted key read from text: its segments and where it ended. */
export interface ScannedKeyPath {
  /** The unquoted segments, e.g. `["conversation", "tools", "*", "run"]`. */
  readonly segments: string[];
  /** Index just past the last segment (trailing whitespace not consumed). */
  readonly end: number;
}

/**
 * Reads a dotted key starting at `start` (leading whitespace allowed).
 * Returns `undefined` when no well-formed key starts there.
 */
export function scanKeyPath(text: string, start = 0): ScannedKeyPath | undefined {
  const segments: string[] = [];
  let i = skipSpaces(text, start);
  for (;;) {
    const segment = scanSegment(text, i);
    if (segment === undefined) return undefined;
    segments.push(segment.value);
    i = segment.end;
    const afterSpaces = skipSpaces(text, i);
    if (text[afterSpaces] !== ".") return { segments, end: i };
    i = skipSpaces(text, afterSpaces + 1);
  }
}

/**
 * Parses a whole string as a dotted key; `undefined` unless the key spans
 * all of it (surrounding whitespace allowed).
 */
export function parseKeyPath(text: string): string[] | undefined {
  const scanned = scanKeyPath(text);
  if (scanned === undefined) return undefined;
  return skipSpaces(text, scanned.end) === text.length ? scanned.segments : undefined;
}

/**
 * Spells segments as a TOML dotted key: bare where possible, `'single'`
 * quotes otherwise, JSON-style double quotes when the segment holds a `'`
 * or a control character.
 */
export function formatKeyPath(segments: readonly string[]): string {
  return segments.map(formatSegment).join(".");
}

/** A map key for a path (segments may contain dots, so join on NUL). */
export function pathKey(segments: readonly string[]): string {
  return segments.join("\u0000");
}

function formatSegment(segment: string): string {
  if (BARE_SEGMENT.test(segment)) return segment;
  // deno-lint-ignore no-control-regex
  if (!segment.includes("'") && !/[\u0000-\u001f\u007f]/.test(segment)) return `'${segment}'`;
  return JSON.stringify(segment);
}

function skipSpaces(text: string, i: number): number {
  while (text[i] === " " || text[i] === "\t") i++;
  return i;
}

function scanSegment(text: string, i: number): { value: string; end: number } | undefined {
  const first = text[i];
  if (first === "'") {
    const close = text.indexOf("'", i + 1);
    if (close < 0) return undefined;
    const value = text.slice(i + 1, close);
    return value.includes("\n") ? undefined : { value, end: close + 1 };
  }
  if (first === '"') return scanBasicString(text, i);
  let end = i;
  while (end < text.length && BARE_CHAR.test(text[end] ?? "")) end++;
  return end === i ? undefined : { value: text.slice(i, end), end };
}

const ESCAPES: Readonly<Record<string, string>> = {
  b: "\b",
  t: "\t",
  n: "\n",
  f: "\f",
  r: "\r",
  e: "\u001b",
  '"': '"',
  "\\": "\\",
};

function scanBasicString(text: string, i: number): { value: string; end: number } | undefined {
  let value = "";
  let j = i + 1;
  while (j < text.length) {
    const ch = text[j];
    if (ch === '"') return { value, end: j + 1 };
    if (ch === "\n") return undefined;
    if (ch !== "\\") {
      value += ch;
      j++;
      continue;
    }
    const code = text[j + 1] ?? "";
    const simple = ESCAPES[code];
    if (simple !== undefined) {
      value += simple;
      j += 2;
      continue;
    }
    const width = code === "u" ? 4 : code === "U" ? 8 : code === "x" ? 2 : 0;
    const hex = text.slice(j + 2, j + 2 + width);
    if (width === 0 || !/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== width) return undefined;
    const point = Number.parseInt(hex, 16);
    if (point > 0x10ffff) return undefined;
    value += String.fromCodePoint(point);
    j += 2 + width;
  }
  return undefined;
}
