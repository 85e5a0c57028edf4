/**
 * Everything spillway prints that came from outside (tool output, the
 * model's words, call ids, tool and server names, arguments, error
 * messages, config values) is shown as text but never allowed to drive the
 * terminal: control characters other than newline and tab are made visible,
 * so an escape sequence cannot clear the screen, retitle the window or forge
 * a link, and bidi controls are made visible, so text cannot reorder what is
 * printed around it ("Trojan Source").
 *
 * @module
 */

import { controlCharacters, unicodeEscape } from "../text/control_characters.ts";

/** C0 controls except `\t` and `\n`, DEL, C1 controls and bidi controls. */
const CONTROL = controlCharacters({ keep: "\t\n" });
/** The same, plus `\n`: for text that must stay on one line. */
const CONTROL_OR_NEWLINE = controlCharacters({ keep: "\t" });

/** Options of {@linkcode sanitizeForTerminal}. */
export interface SanitizeOptions {
  /**
   * Also make newlines visible (`\x0a`), for text printed as one line (a
   * notice, a call line, a table cell): a name cannot then start a line that
   * looks like spillway's own. Default false.
   */
  readonly singleLine?: boolean;
}

/**
 * Replaces control characters with visible stand-ins: `␛` for ESC, `\x07`
 * style escapes for the other C0 and C1 controls and DEL, `\u202e` style
 * escapes for bidi controls. Text without them is returned unchanged.
 *
 * @param text what is about to be printed
 * @param options `singleLine` (default false) also makes newlines visible
 * @returns the text, safe to write to a terminal
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sanitizeForTerminal } from "./sanitize.ts";
 * assert.equal(sanitizeForTerminal("\x1b[2Jok\tdone\r"), "␛[2Jok\tdone\\x0d");
 * assert.equal(sanitizeForTerminal("invoice\u202Etxt.exe"), "invoice\\u202etxt.exe");
 * assert.equal(sanitizeForTerminal("a\nb", { singleLine: true }), "a\\x0ab");
 * ```
 */
export function sanitizeForTerminal(text: string, options: SanitizeOptions = {}): string {
  return text.replace(options.singleLine ? CONTROL_OR_NEWLINE : CONTROL, visible);
}

function visible(c: string): string {
  if (c === "\x1b") return "␛";
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : unicodeEscape(c);
}
