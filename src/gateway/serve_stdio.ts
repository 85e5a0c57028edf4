/**
 * `spillway serve --stdio`: one client, which spawned spillway, speaks MCP
 * over our stdin and stdout ({@linkcode LineStdioServerTransport}). stdout
 * carries only the protocol; notices and logs go to stderr. The connection
 * takes the protocol era of its first message (the SDK's `serveStdio`
 * pins it): a 2025 client's `initialize`, or a 2026-07-28 client's
 * enveloped request (Claude Code opens with `server/discover`). Either way
 * the connection is one conversation, opened at start; it ends when the
 * client closes our stdin. Either era's client can be asked for input by a
 * call (a request to it in 2025, `input_required` in 2026-07-28).
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { serveStdio as servePinned } from "../service/sdk.ts";
import { LEGACY_PROTOCOL } from "./_open_session.ts";
import type { Gateway } from "./gateway.ts";
import type { GatewaySession } from "./gateway_session.ts";
import { LineStdioServerTransport } from "./line_stdio_server_transport.ts";
import { DEFAULT_INPUT_ROUNDS, InputRounds, type InputRoundsOptions } from "./input_rounds.ts";

const log = getLogger(["spillway", "gateway"]);

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
 * @param streams where the client is. Default: this process's stdin and stdout.
 * @param inputs the limits of 2026-07-28 calls waiting for the client's input
 */
export function serveStdio(
  gateway: Gateway,
  streams?: {
    readonly readable: ReadableStream<Uint8Array>;
    readonly writable: WritableStream<Uint8Array>;
  },
  inputs: InputRoundsOptions = DEFAULT_INPUT_ROUNDS,
): Promise<StdioServing> {
  const transport = new LineStdioServerTransport(streams);
  const conversation = gateway.open();
  // A 2026-07-28 client's calls that ask it for input wait here between rounds.
  const rounds = new InputRounds(inputs);
  // The SDK makes a server for the connection once its first message says
  // the era (and one more for a 2026-07-28 `server/discover` it answers
  // before that): each is a server over the one conversation.
  const handle = servePinned((context) => {
    // Once our stdin ended, a call's abort is the client's going away.
    const server = conversation.server({ disconnected: () => transport.closing, rounds });
    if (context.era === "legacy") {
      server.oninitialized = () =>
        conversation.identify(
          server.getClientVersion(),
          server.getNegotiatedProtocolVersion() ?? LEGACY_PROTOCOL,
        );
    }
    return server;
  }, {
    transport,
    // What the protocol could not handle (a line that is not JSON-RPC, a reply to nothing) is skipped.
    onerror: (error) => log.warn("stdio: {error}", { error }),
  });
  void transport.ended.then(async () => {
    rounds.close("the client disconnected");
    await conversation.session.close();
    await handle.close();
  });
  return Promise.resolve({ session: conversation.session, ended: transport.ended });
}
