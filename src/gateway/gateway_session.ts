/**
 * One client session of a `spillway serve` gateway, as the transports see
 * it: its id, its client, the conversation it records into and its MCP
 * server; they touch it on requests other than calls and close it when the
 * client goes.
 *
 * @module
 */

import type { Server } from "../service/sdk.ts";

/** One connected client session. */
export interface GatewaySession {
  /** The session id. */
  readonly id: string;
  /** The client it belongs to. */
  readonly client: string;
  /** The conversation it records into. */
  readonly conversationId: string;
  /** Its MCP server. */
  readonly server: Server;
  /**
   * Says the client sent something other than a call (a listing, a ping):
   * an idle session's timeout starts again.
   */
  touch(): void;
  /** Disconnects it: its running calls are cancelled (and recorded as such). */
  close(): Promise<void>;
}
