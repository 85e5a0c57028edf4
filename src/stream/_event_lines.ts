/**
 * The on-disk line format shared by the stream backends: one JSON object per
 * line, `\n`-terminated. Kept in one place so the file store and the memory
 * store serialize, validate and warn identically.
 *
 * @module
 */

import type { StreamEvent } from "./events.ts";
import { reasonText } from "../errors/reason_text.ts";

/** The name of a conversation's log file, also the prefix of load warnings. */
export const EVENTS_FILE = "events.jsonl";

/**
 * Serializes events to JSON lines in one string: the lines the memory store
 * keeps (the file store writes the same lines straight into bytes, see
 * `_event_line_buffer.ts`). `JSON.stringify` escapes lone surrogates, so
 * every string survives the round trip exactly.
 */
export function serializeEvents(events: readonly StreamEvent[]): string {
  return events.map((event) => JSON.stringify(event) + "\n").join("");
}

/**
 * Parses one line (without its `\n`) into an event.
 *
 * @throws {SyntaxError} when the line is not JSON or not an object with a string `type`
 */
export function parseEventLine(line: string): StreamEvent {
  const value: unknown = JSON.parse(line);
  if (
    typeof value !== "object" || value === null || Array.isArray(value) ||
    typeof (value as { type?: unknown }).type !== "string"
  ) {
    throw new SyntaxError("not an event object with a string `type`");
  }
  return value as StreamEvent;
}

/** Whether `line` parses as an event. */
export function isEventLine(line: string): boolean {
  try {
    parseEventLine(line);
    return true;
  } catch {
    return false;
  }
}

/** The warning for a skipped torn last line (`bytes` without its newline, 1-based `line`). */
export function tornLineWarning(bytes: number, line: number): string {
  return `${EVENTS_FILE}: skipped a torn last line (${bytes} bytes) at line ${line}`;
}

/** The message part of an unknown thrown value. */
export function errorText(error: unknown): string {
  return reasonText(error);
}
