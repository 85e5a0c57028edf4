/**
 * Tool output is shown raw (the cap is a delivery limit, not a display
 * limit), but never allowed to drive the terminal: control characters other
 * than newline and tab are made visible, so an escape sequence in a test log
 * cannot clear the screen, retitle the window or forge a link.
 *
 * @module
 */

// C0 controls except \t and \n, DEL, and C1 controls.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Replaces control characters with visible stand-ins (`␛` for ESC, `\x07`
 * style escapes for the rest).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sanitizeForTerminal } from "./sanitize.ts";
 * assert.equal(sanitizeForTerminal("\x1b[2Jok\tdone\r"), "␛[2Jok\tdone\\x0d");
 * ```
 */
export function sanitizeForTerminal(text: string): string {
  return text.replace(CONTROL, (c) => {
    if (c === "\x1b") return "␛";
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;
  });
}
