/**
 * Reads one `--cfg key=value` flag into a one-key document that validates
 * like a file layer. The key is a TOML dotted path (`conversation.tools.'*'.run`);
 * the value is read as a TOML value when it is one (`10`, `["cargo", "test"]`,
 * `"1MB"`), else taken as a bare string (`1MB`, `ask`), so shells need no
 * extra quoting for the common cases. A bare `*` segment stands for `'*'`:
 * a shell eats the quotes of `conversation.tools.'*'.run=ask`, and the form
 * that survives it (`'conversation.tools.*.run=ask'`) is the one to document.
 *
 * @module
 */

import { parse } from "smol-toml";
import { parseKeyPath } from "./_key_path.ts";

const EXAMPLE = "e.g. --cfg 'conversation.tools.*.run=ask'";

/**
 * How messages cite an assignment: `--cfg <assignment>`, with control
 * characters escaped so that every problem stays on one line.
 */
export function cfgSite(assignment: string): string {
  return flagSite("--cfg", assignment);
}

/** How messages cite a flag and its value (`--model openai/x`), on one line. */
export function flagSite(flag: string, value: string): string {
  const printable = value.replace(
    // deno-lint-ignore no-control-regex
    /[\u0000-\u001f\u007f]/g,
    (ch) => JSON.stringify(ch).slice(1, -1),
  );
  return `${flag} ${printable}`;
}

/** The document a `--cfg` assignment stands for, or why it cannot be read. */
export type CfgAssignment =
  | { readonly ok: true; readonly path: string[]; readonly document: Record<string, unknown> }
  | { readonly ok: false; readonly error: string };

/**
 * Parses `assignment`. Errors are phrased as `--cfg <assignment>: <reason>`.
 */
export function parseCfgAssignment(assignment: string): CfgAssignment {
  const site = cfgSite(assignment);
  const split = equalsOutsideQuotes(assignment);
  if (split < 0) return { ok: false, error: `${site}: expected key=value (${EXAMPLE})` };
  const keyText = assignment.slice(0, split);
  const path = parseKeyPath(keyText) ?? parseKeyPath(quoteBareStars(keyText));
  if (path === undefined) {
    return {
      ok: false,
      error: `${site}: invalid key \`${JSON.stringify(keyText.trim()).slice(1, -1)}\` ` +
        "(expected a dotted key path such as conversation.tools.*.run)",
    };
  }
  const value = readValue(assignment.slice(split + 1).trim());
  // Null-prototype tables, as smol-toml makes them: a `__proto__` segment stays a key.
  const table = (): Record<string, unknown> => Object.create(null);
  let document = table();
  const root = document;
  for (const [i, segment] of path.entries()) {
    if (i === path.length - 1) {
      document[segment] = value;
    } else {
      const child = table();
      document[segment] = child;
      document = child;
    }
  }
  return { ok: true, path, document: root };
}

/** `conversation.tools.*.run` → `conversation.tools.'*'.run` (a whole segment only). */
function quoteBareStars(key: string): string {
  return key.replace(/(^|\.)(\s*)\*(\s*)(?=\.|$)/g, "$1$2'*'$3");
}

function readValue(text: string): unknown {
  try {
    const parsed = parse(`value = ${text}`);
    // A value smuggling in more keys (`1\nother = 2`) is not one TOML value.
    if (Object.keys(parsed).length === 1 && "value" in parsed) return parsed.value;
  } catch {
    // Not a TOML value: a bare string, such as `1MB` or `ask`.
  }
  return text;
}

function equalsOutsideQuotes(text: string): number {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote !== undefined) {
      if (ch === "\\" && quote === '"') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
    } else if (ch === "=") {
      return i;
    }
  }
  return -1;
}
