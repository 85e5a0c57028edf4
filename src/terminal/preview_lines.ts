/**
 * Which lines of a result the terminal previews: the part its tool's
 * `truncation` keeps when a cap cuts it. A `head` tool shows its first
 * lines, a `tail` tool its last ones (a test run's summary, not its first
 * test), a `head_tail` tool both ends, shared as `truncation_split` shares
 * the bytes; a `json` or `auto` tool its first lines too (a json cut keeps
 * the value's beginning, and falls back to the head). So what the person reads is what the assistant got, whether or
 * not the response was cut. A result can be 100 MB: lines are counted and
 * picked without splitting (and so copying) the whole text.
 *
 * @module
 */

import type { ToolCallResponse } from "../review/tool_call_response.ts";
import type { Truncation } from "../size/truncation.ts";

/** The lines a preview shows, from each end of the text. */
export interface PreviewLines {
  /** How many lines the whole text has (a final newline ends a line). */
  readonly count: number;
  /** Its first lines shown. */
  readonly head: readonly string[];
  /**
   * Its last lines shown, after the ones left out. The first may start with
   * `…` when it is only the end of a line (of a text too large to hold).
   */
  readonly tail: readonly string[];
}

/** The mark of a line shown from somewhere inside it. */
export const PARTIAL_LINE = "…";

/**
 * The lines of `response` to preview, at most `limit` of them (`Infinity`
 * for all), from the ends `truncation` keeps (when all of them are shown,
 * each end still holds its share, from which the byte bound cuts).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { previewLines } from "./preview_lines.ts";
 * const response = { id: "c", content: "1\n2\n3\n4\n5\n", isError: false };
 * const split = { strategy: "head_tail", headPercent: 50 } as const;
 * assert.deepEqual(previewLines(response, 2, split), { count: 5, head: ["1"], tail: ["5"] });
 * const tail = { strategy: "tail", headPercent: 50 } as const;
 * assert.deepEqual(previewLines(response, 2, tail), { count: 5, head: [], tail: ["4", "5"] });
 * ```
 */
export function previewLines(
  response: ToolCallResponse,
  limit: number,
  truncation: Truncation,
): PreviewLines {
  const { content, window } = response;
  const { strategy } = truncation;
  const first = headLines(content, strategy === "tail" ? 0 : limit);
  const count = window?.lines ?? first.count;
  const shown = Math.min(limit, count);
  if (strategy !== "tail" && strategy !== "head_tail" || shown === 0) {
    return { count, head: first.shown, tail: [] };
  }
  // Both ends share the lines even when all of them are shown: the byte
  // bound may still leave the middle out.
  const headCount = strategy === "tail"
    ? 0
    : shown === 1
    ? 1
    : Math.min(shown - 1, Math.max(1, Math.round(shown * truncation.headPercent / 100)));
  // A text too large to hold has its end in its window, which starts anywhere in a line.
  const tail = lastLines(window?.tail ?? content, shown - headCount, window !== undefined);
  return { count, head: first.shown.slice(0, headCount), tail };
}

/**
 * The number of lines of `text` (a final newline ends a line), and the first `limit` of them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { headLines } from "./preview_lines.ts";
 * assert.deepEqual(headLines("a\n\nc", 2), { count: 3, shown: ["a", ""] });
 * ```
 */
export function headLines(text: string, limit: number): { count: number; shown: string[] } {
  const shown: string[] = [];
  let count = 0;
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf("\n", start);
    const stop = end === -1 ? text.length : end;
    if (count < limit) shown.push(text.slice(start, stop));
    count++;
    start = stop + 1;
  }
  return { count, shown };
}

/**
 * The last `limit` lines of `text` (as {@linkcode headLines} counts them).
 * With `partialStart`, the text's first line may be the end of a longer one:
 * it is marked with {@linkcode PARTIAL_LINE} when it is shown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { lastLines } from "./preview_lines.ts";
 * assert.deepEqual(lastLines("a\nb\nc\n", 2), ["b", "c"]);
 * assert.deepEqual(lastLines("ne\nb\n", 5, true), ["…ne", "b"]);
 * ```
 */
export function lastLines(text: string, limit: number, partialStart = false): string[] {
  const lines: string[] = [];
  // A final newline ends the last line; it starts no new one.
  let end = text.endsWith("\n") ? text.length - 1 : text.length;
  if (text === "") return lines;
  while (lines.length < limit) {
    const newline = end === 0 ? -1 : text.lastIndexOf("\n", end - 1);
    if (newline === -1) {
      lines.unshift((partialStart ? PARTIAL_LINE : "") + text.slice(0, end));
      break;
    }
    lines.unshift(text.slice(newline + 1, end));
    end = newline;
  }
  return lines;
}
