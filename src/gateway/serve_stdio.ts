/**
 * `spillway serve --stdio`: one client, which spawned spillway, speaks MCP
 * over our stdin and stdout. stdout carries only the protocol; notices and
 * logs go to stderr. The session ends when the client closes our stdin.
 *
 * @module
 */

import process from "node:process";
import { StdioServerTransport } from "../service/sdk.ts";
import type { Gateway, GatewaySession } from "./gateway.ts";

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
 * @param streams the streams to speak on. Default: `process.stdin` and `process.stdout`.
 */
export async function serveStdio(
  gateway: Gateway,
  streams: {
    readonly stdin: NodeJS.ReadableStream;
    readonly stdout: NodeJS.WritableStream;
  } = { stdin: process.stdin, stdout: process.stdout },
): Promise<StdioServing> {
  const transport = new StdioServerTransport(
    streams.stdin as typeof process.stdin,
    streams.stdout as typeof process.stdout,
  );
  const ended = Promise.withResolvers<void>();
  const onEnd = () => ended.resolve();
  streams.stdin.once("end", onEnd);
  streams.stdin.once("close", onEnd);
  const session = await gateway.connect(transport);
  void ended.promise.then(() => session.close());
  return { session, ended: ended.promise };
}
