/**
 * The bearer token of `spillway serve --http`: read from the variable
 * `serve.token_env` names (by default `SPILLWAY_SERVE_TOKEN`), or generated
 * when that variable is unset. A token a client could never send is
 * refused at start, and a short one is warned about; neither message shows
 * the token, only where it is and what is wrong with it.
 *
 * @module
 */

import type { ServeConfig } from "../config/serve_config.ts";
import { SpillwayError } from "../errors/spillway_error.ts";

/** Below this many characters a token gets a warning at start: it can be guessed. */
export const MIN_TOKEN_CHARS = 16;

/** The token, whether spillway made it, and what to warn about. */
export interface ServeToken {
  readonly value: string;
  /** Whether it was generated (then `serve` prints it). */
  readonly generated: boolean;
  /** A warning to print at start, without the `warning: ` prefix. */
  readonly warning?: string;
}

/**
 * The token: the variable `settings.tokenEnv` names; unset, a generated one,
 * unless the user named the variable on purpose (then its absence is an
 * error, not a surprise token).
 *
 * @throws {SpillwayError} `config_invalid` when the named variable is unset,
 *   or the token holds a character an `Authorization` header cannot carry
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseConfig } from "../config/parse_config.ts";
 * import { serveToken } from "./_serve_token.ts";
 * const settings = parseConfig("").serve();
 * assert.equal(serveToken(settings, { SPILLWAY_SERVE_TOKEN: "0123456789abcdef" }).value, "0123456789abcdef");
 * assert.equal(serveToken(settings, {}).generated, true);
 * assert.throws(() => serveToken(settings, { SPILLWAY_SERVE_TOKEN: "two words0123456789" }));
 * ```
 */
export function serveToken(
  settings: ServeConfig,
  env: Readonly<Record<string, string | undefined>>,
): ServeToken {
  const { tokenEnv } = settings;
  const name = tokenEnv.value;
  // Where the variable was named, for messages: the config line, or nothing for the default.
  const named = tokenEnv.origin === "default"
    ? ""
    : `${tokenEnv.at}: serve.token_env = "${name}": `;
  const value = env[name];
  if (value === undefined || value === "") {
    if (tokenEnv.origin === "default") return { value: generateToken(), generated: true };
    throw new SpillwayError(
      "config_invalid",
      `${tokenEnv.at}: serve.token_env = "${name}" names a variable that is not set: ` +
        `set ${name} to the token your clients send, or remove serve.token_env to ` +
        `get a generated token`,
    );
  }
  const bad = unsendable(value);
  if (bad !== undefined) {
    throw new SpillwayError(
      "config_invalid",
      `${named}${name} holds a token with ${bad.what} at character ${bad.at} of ${
        [...value].length
      }: no client can send it in an Authorization header, so none would be let in; ` +
        `set ${name} to visible ASCII characters only (letters, digits, -._~+/), ` +
        "e.g. the output of `openssl rand -hex 32`",
      { variable: name },
    );
  }
  const length = [...value].length;
  if (length < MIN_TOKEN_CHARS) {
    return {
      value,
      generated: false,
      warning: `${named}${name} holds a token of ${length} character${length === 1 ? "" : "s"}: ` +
        `a token shorter than ${MIN_TOKEN_CHARS} can be guessed by anyone who can reach the ` +
        "gateway; use a long random one, e.g. the output of `openssl rand -hex 32`",
    };
  }
  return { value, generated: false };
}

/** The first character of `token` an `Authorization` header cannot carry, described. */
function unsendable(token: string): { what: string; at: number } | undefined {
  let at = 0;
  for (const char of token) {
    at++;
    const code = char.codePointAt(0) ?? 0;
    if (code >= 0x21 && code <= 0x7e) continue;
    return { what: describe(char, code), at };
  }
  return undefined;
}

function describe(char: string, code: number): string {
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  if (char === " ") return "a space";
  if (char === "\t") return "a tab";
  if (char === "\n" || char === "\r") return `a line break (${hex})`;
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return `a control character (${hex})`;
  if (/\s/u.test(char)) return `whitespace (${hex})`;
  return `a character outside ASCII (${hex})`;
}

/** 32 random bytes, hex. */
function generateToken(): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(32)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}
