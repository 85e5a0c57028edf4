/**
 * Which client a request of `spillway serve --http` is from: the one whose
 * bearer token it carries. Each client has a token of its own (the default
 * client's, and one per `[serve.tokens.NAME]`); a request's token is
 * compared with every one of them, in time that depends neither on where a
 * token first differs nor on which one matched.
 *
 * @module
 */

/** One client and the bearer token that makes a request its own. */
export interface ClientToken {
  /** The client's name: `default`, or NAME of `[serve.tokens.NAME]`. */
  readonly client: string;
  /** Its token. */
  readonly token: string;
}

/**
 * The clients of a gateway, by token.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ClientTokens } from "./client_tokens.ts";
 * const tokens = new ClientTokens([
 *   { client: "default", token: "0123456789abcdef" },
 *   { client: "alice", token: "alice-0123456789" },
 * ]);
 * assert.equal(tokens.identify("Bearer alice-0123456789"), "alice");
 * assert.equal(tokens.identify("Bearer 0123456789abcdeX"), undefined);
 * assert.equal(tokens.identify(null), undefined);
 * ```
 */
export class ClientTokens {
  readonly #entries: readonly { readonly client: string; readonly token: Uint8Array }[];

  /**
   * @param clients each client and its token; no two may share a token
   * @throws {TypeError} when two clients share a token, or there is none
   */
  constructor(clients: readonly ClientToken[]) {
    if (clients.length === 0) throw new TypeError("ClientTokens needs at least one client");
    const seen = new Set<string>();
    for (const { client, token } of clients) {
      if (seen.has(token)) throw new TypeError(`client ${client} shares its token with another`);
      seen.add(token);
    }
    const encoder = new TextEncoder();
    this.#entries = clients.map(({ client, token }) => ({ client, token: encoder.encode(token) }));
  }

  /**
   * The client whose token an `Authorization` header (`Bearer <token>`)
   * carries, or `undefined` for none (no header, another scheme, a wrong
   * token). Every token is compared, whichever matches.
   */
  identify(authorization: string | null): string | undefined {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (match === null) return undefined;
    const given = new TextEncoder().encode(match[1] ?? "");
    let found: string | undefined;
    for (const entry of this.#entries) {
      // No early exit: the time does not say which token matched, or how far one did.
      if (sameSecret(given, entry.token)) found = entry.client;
    }
    return found;
  }
}

/** Compares secrets in time independent of where they first differ. */
function sameSecret(given: Uint8Array, expected: Uint8Array): boolean {
  let differs = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) differs |= (given[i] ?? 0) ^ (expected[i] as number);
  return differs === 0;
}
