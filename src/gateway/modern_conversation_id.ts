/**
 * The conversation id of a 2026-07-28 conversation: derived from its client
 * and its key ({@linkcode modernConversationKey}), never drawn at random, so
 * that every gateway a client's requests reach (behind a load balancer
 * without affinity: the protocol has no session to pin) records a request
 * of that conversation into the same conversation. A key's conversation
 * goes on across idle periods and gateway restarts; each gateway that joins
 * it records a `session_start` of its own.
 *
 * The id is `m-` and 24 hex digits of the SHA-256 of the client and the key
 * (the key is the client's words: a header, an id in `_meta`; it is not
 * shown), and, on a gateway of several clients, `.` and the client's name as
 * {@linkcode ClientConversationId} ends its ids, so `conversation ls` names
 * the client from the id.
 *
 * @module
 */

import { createHash } from "node:crypto";

/** How many hex digits of the digest an id keeps: 96 bits, no collision among real keys. */
const DIGEST_HEX = 24;

/** Options of {@linkcode modernConversationId}. */
export interface ModernConversationIdOptions {
  /**
   * Whether the gateway has clients of their own tokens
   * (`[serve.tokens.NAME]`): the id then ends in `.` and the client's name.
   * Default: false.
   */
  readonly named?: boolean;
}

/**
 * The conversation of `client`'s 2026-07-28 requests whose key is `key`,
 * the same on every gateway.
 *
 * @param client the client (its token's name: `default`, or NAME of `[serve.tokens.NAME]`)
 * @param key the request's conversation key (`modernConversationKey`)
 * @param options see {@linkcode ModernConversationIdOptions}
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modernConversationId } from "./modern_conversation_id.ts";
 * const id = modernConversationId("alice", "header:review", { named: true });
 * assert.match(id, /^m-[0-9a-f]{24}\.alice$/);
 * assert.equal(modernConversationId("alice", "header:review", { named: true }), id);
 * assert.notEqual(modernConversationId("bob", "header:review", { named: true }), `m-${id.slice(2, 26)}.bob`);
 * assert.match(modernConversationId("default", "client:claude-code"), /^m-[0-9a-f]{24}$/);
 * ```
 */
export function modernConversationId(
  client: string,
  key: string,
  options: ModernConversationIdOptions = {},
): string {
  const digest = createHash("sha256").update(`spillway 2026-07-28\n${client}\n${key}`)
    .digest("hex").slice(0, DIGEST_HEX);
  return options.named === true ? `m-${digest}.${client}` : `m-${digest}`;
}
