/**
 * One client session of a `spillway serve` gateway, as the transports see
 * it: its id, its client, the conversation it records into and its MCP
 * server; they touch it on requests other than calls and close it when the
 * client goes.
 *
 * @module
 */

import type { CatalogKind } from "./client_catalog.ts";

/** One connected client session. */
export interface GatewaySession {
  /** The session id. */
  readonly id: string;
  /** The client it belongs to. */
  readonly client: string;
  /** The conversation it records into. */
  readonly conversationId: string;
  /**
   * Tells its client that the tools (or its prompts or resources) changed;
   * a 2026-07-28 conversation's clients hear it on their listen streams,
   * which the gateway's front tells, not each conversation.
   */
  readonly notify: {
    toolsChanged(): void;
    catalogChanged(kind: CatalogKind): void;
  };
  /**
   * Says the client sent something other than a call (a listing, a ping):
   * an idle session's timeout starts again.
   */
  touch(): void;
  /** Disconnects it: its running calls are cancelled (and recorded as such). */
  close(): Promise<void>;
}
