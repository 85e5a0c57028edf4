/**
 * Which client a gateway's conversation belongs to, in its id: when a
 * `spillway serve` has clients of their own tokens (`[serve.tokens.NAME]`),
 * each session records into a conversation whose id ends in `.` and the
 * client's name (`20261202-021241-26f73c.alice`, the default client's
 * `….default`), so each client's conversations are recorded apart and
 * `conversation ls` names the client without reading the stream; the
 * stream's events are unchanged. A gateway of one client keeps plain ids.
 *
 * @module
 */

import { newConversationId } from "../stream/new_conversation_id.ts";

/**
 * A gateway conversation's id with its client: the timestamped id (or a
 * 2026-07-28 conversation's derived one, `modern_conversation_id.ts`), `.`,
 * the name.
 */
const CLIENT_ID = /^(?:\d{8}-\d{6}-[0-9a-f]{6}|m-[0-9a-f]{24})\.([A-Za-z0-9_-]{1,64})$/;

/**
 * Conversation ids that name their client.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ClientConversationId } from "./client_conversation_id.ts";
 * const id = ClientConversationId.create("alice");
 * assert.match(id, /^\d{8}-\d{6}-[0-9a-f]{6}\.alice$/);
 * assert.equal(ClientConversationId.clientOf(id), "alice");
 * assert.equal(ClientConversationId.clientOf("20261202-021241-26f73c"), undefined);
 * assert.equal(ClientConversationId.clientOf("m-0123456789abcdef01234567.ci"), "ci");
 * ```
 */
export const ClientConversationId = {
  /** A new conversation id of `client` (a name of 1-64 of `A-Z a-z 0-9 _ -`). */
  create(client: string, clock?: () => Date): string {
    return `${newConversationId(clock)}.${client}`;
  },
  /** The client conversation `id` belongs to, when its id names one. */
  clientOf(id: string): string | undefined {
    return CLIENT_ID.exec(id)?.[1];
  },
} as const;
