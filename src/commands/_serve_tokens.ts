/**
 * The bearer tokens of `spillway serve --http`, one per client: the default
 * client's read from the variable `serve.token_env` names (by default
 * `SPILLWAY_SERVE_TOKEN`), or generated when that variable is unset; each
 * `[serve.tokens.NAME]` client's from the variable its `env` names. A token
 * a client could never send is refused at start, and a short one is warned
 * about, whichever client's it is; no message shows a token, only where it
 * is and what is wrong with it.
 *
 * @module
 */

import { DEFAULT_CLIENT, type ServeConfig } from "../config/serve_config.ts";
import type { ClientToken } from "../gateway/client_tokens.ts";
import { SpillwayError } from "../errors/spillway_error.ts";

/** Below this many characters a token gets a warning at start: it can be guessed. */
export const MIN_TOKEN_CHARS = 16;

/** Every client's token, whether spillway made the default one, and what to warn about. */
export interface ServeTokens {
  /** The clients, the default one first, then `[serve.tokens]` in the order configured. */
  readonly clients: readonly ClientToken[];
  /** The default client's token when spillway generated it (then `serve` prints it). */
  readonly generated?: string;
  /** Warnings to print at start, without the `warning: ` prefix. */
  readonly warnings: readonly string[];
}

/**
 * The tokens of every client: the default client's is the variable
 * `settings.tokenEnv` names, or a generated one when it is unset (unless the
 * user named the variable on purpose: then its absence is an error, not a
 * surprise token); each `[serve.tokens.NAME]` client's is the variable its
 * `env` names, which must be set. Every token passes the same checks, and
 * no two clients may share one (a request must name one client).
 *
 * @throws {SpillwayError} `config_invalid`, listing every problem: a named
 *   variable is unset, a token holds a character an `Authorization` header
 *   cannot carry, two clients hold the same token
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseConfig } from "../config/parse_config.ts";
 * import { serveTokens } from "./_serve_tokens.ts";
 * const settings = parseConfig('[serve.tokens.alice]\nenv = "ALICE_TOKEN"\n').serve();
 * const tokens = serveTokens(settings, {
 *   SPILLWAY_SERVE_TOKEN: "0123456789abcdef",
 *   ALICE_TOKEN: "alice-0123456789",
 * });
 * assert.deepEqual(tokens.clients.map((c) => c.client), ["default", "alice"]);
 * assert.equal(serveTokens(parseConfig("").serve(), {}).generated?.length, 64);
 * assert.throws(() => serveTokens(settings, { ALICE_TOKEN: "two words0123456789" }));
 * ```
 */
export function serveTokens(
  settings: ServeConfig,
  env: Readonly<Record<string, string | undefined>>,
): ServeTokens {
  const problems: string[] = [];
  const warnings: string[] = [];
  const clients: ClientToken[] = [];
  /** Where each token came from, for the message that names two clients with one. */
  const holders = new Map<string, string>();
  let generated: string | undefined;
  const { tokenEnv } = settings;
  const defaultOne = readToken(
    {
      variable: tokenEnv.value,
      // Where the variable was named, for messages: the config line, or nothing for the default.
      named: tokenEnv.origin === "default"
        ? ""
        : `${tokenEnv.at}: serve.token_env = "${tokenEnv.value}": `,
      unset: tokenEnv.origin === "default"
        ? undefined
        : `${tokenEnv.at}: serve.token_env = "${tokenEnv.value}" names a variable that is not set: ` +
          `set ${tokenEnv.value} to the token your clients send, or remove serve.token_env to ` +
          "get a generated token",
    },
    env,
    problems,
    warnings,
  );
  if (defaultOne === "unset") {
    generated = generateToken();
    clients.push({ client: DEFAULT_CLIENT, token: generated });
  } else if (defaultOne !== undefined) {
    clients.push({ client: DEFAULT_CLIENT, token: defaultOne });
    holders.set(defaultOne, `serve.token_env (${tokenEnv.value})`);
  }
  for (const [client, variable] of settings.tokens) {
    const setting = `serve.tokens.${client}.env`;
    const token = readToken(
      {
        variable: variable.value,
        named: `${variable.at}: ${setting} = "${variable.value}": `,
        unset: `${variable.at}: ${setting} = "${variable.value}" names a variable that is not ` +
          `set: set ${variable.value} to the token client ${client} sends, or remove ` +
          `[serve.tokens.${client}]`,
      },
      env,
      problems,
      warnings,
    );
    if (token === undefined || token === "unset") continue;
    const other = holders.get(token);
    if (other !== undefined) {
      problems.push(
        `${variable.at}: ${setting} (${variable.value}) holds the same token as ${other}: ` +
          "a token must name one client; give each client a token of its own",
      );
      continue;
    }
    holders.set(token, `${setting} (${variable.value})`);
    clients.push({ client, token });
  }
  if (problems.length > 0) {
    throw new SpillwayError(
      "config_invalid",
      problems.length === 1 ? problems[0] as string : `${problems.length} token problems`,
      { errors: problems },
    );
  }
  return { clients, ...(generated === undefined ? {} : { generated }), warnings };
}

/**
 * The token in `where.variable`, checked: `"unset"` when the variable is
 * unset or empty and may be (`where.unset` undefined), `undefined` when a
 * problem was recorded.
 */
function readToken(
  where: { readonly variable: string; readonly named: string; readonly unset?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
  warnings: string[],
): string | "unset" | undefined {
  const { variable: name, named } = where;
  const value = env[name];
  if (value === undefined || value === "") {
    if (where.unset === undefined) return "unset";
    problems.push(where.unset);
    return undefined;
  }
  const bad = unsendable(value);
  if (bad !== undefined) {
    problems.push(
      `${named}${name} holds a token with ${bad.what} at character ${bad.at} of ${
        [...value].length
      }: no client can send it in an Authorization header, so none would be let in; ` +
        `set ${name} to visible ASCII characters only (letters, digits, -._~+/), ` +
        "e.g. the output of `openssl rand -hex 32`",
    );
    return undefined;
  }
  const length = [...value].length;
  if (length < MIN_TOKEN_CHARS) {
    warnings.push(
      `${named}${name} holds a token of ${length} character${length === 1 ? "" : "s"}: ` +
        `a token shorter than ${MIN_TOKEN_CHARS} can be guessed by anyone who can reach the ` +
        "gateway; use a long random one, e.g. the output of `openssl rand -hex 32`",
    );
  }
  return value;
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
