/**
 * `spillway serve --stdio`: one client, which spawned spillway, speaks MCP
 * over our stdin and stdout ({@linkcode LineStdioServerTransport}). stdout
 * carries only the protocol; notices and logs go to stderr. The session
 * ends when the client closes our stdin.
 *
 * @module
 */

import type { Gateway } from "./gateway.ts";
import type { GatewaySession } from "./gateway_session.ts";
import { LineStdioServerTransport } from "./line_stdio_server_transport.ts";

/** A running stdio session. */
export interface StdioServing {
  /** The client's session. */
  readonly session: GatewaySession;
  /** Resolves when the client closed our stdin (or the session was closed). */
  readonly ended: Promise<void>;
}

/**
 * Serves `gateway` to the client on this process's stdin and stdout.
 *
 * @param gateway the started gateway
 * @param streams the streams to speak on. Default: this process's stdin and stdout.
 */
export async function serveStdio(
  gateway: Gateway,
  streams?: {
    readonly readable: ReadableStream<Uint8Array>;
    readonly writable: WritableStream<Uint8Array>;
  },
): Promise<StdioServing> {
  const transport = new LineStdioServerTransport(streams);
  const session = await gateway.connect(transport);
  void transport.ended.then(() => session.close());
  return { session, ended: transport.ended };
}
