/**
 * What one client session is connected with (`Gateway.connect`): its id,
 * the client whose token opened it, and how long it may stay idle.
 *
 * @module
 */

/** Options of {@linkcode Gateway.connect}. */
export interface ConnectOptions {
  /** The session id. Default: a random UUID. */
  readonly id?: string;
  /**
   * The client the session belongs to: the one whose token opened it
   * (`default`, or NAME of `[serve.tokens.NAME]`). Default: `default`.
   */
  readonly client?: string;
  /**
   * How long the session may go without a request before it closes itself
   * (its files released, its server closed), in ms. Default: never (a
   * stdio client's one session lasts as long as its stdin).
   */
  readonly idleTimeoutMs?: number;
  /**
   * A 2026-07-28 conversation's key (`modernConversationKey`): the session
   * then records into that key's conversation (`modernConversationId`),
   * the one every gateway its client's requests reach records into, opened
   * shared with them. Default: none (a new conversation of its own).
   */
  readonly conversationKey?: string;
}
