/**
 * Private helper of the PostgreSQL store: the sockets postgres.js talks
 * over, connected the way libpq connects them, with `TCP_NODELAY` set.
 * postgres.js leaves Nagle's algorithm on, and a stored output's chunk
 * (`COPY … FROM STDIN`: the query, its data, then a 5-byte end message)
 * then waited for the server's delayed acknowledgement before a small
 * message went out: a 1 MiB chunk took 3.5 times as long as with the
 * option set (measured, docs/performance.md).
 *
 * The socket is handed over while it still connects: postgres.js writes
 * its first message at once (the socket holds it until it is connected),
 * bounds the connection with its own connect timeout, and sees a refused
 * or failed connection as it sees any socket's error and close.
 *
 * @module
 */

import net from "node:net";

/** Where postgres.js would connect (its parsed options). */
export interface SocketTarget {
  /** Host names, tried in turn, one per connection attempt. */
  readonly host: readonly string[];
  /** Their ports. */
  readonly port: readonly number[];
  /** A Unix socket path, when the host names a folder. */
  readonly path?: string | false;
}

/**
 * A function that opens a socket to `target`'s next host (or its Unix
 * socket) with `TCP_NODELAY`, connecting.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { socketConnector } from "./_connect_socket.ts";
 * const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
 * const { port } = listener.addr as Deno.NetAddr;
 * const socket = socketConnector()({ host: ["127.0.0.1"], port: [port] });
 * const accepted = await listener.accept();
 * await new Promise((resolve) => socket.once("connect", resolve));
 * assert.equal(socket.remotePort, port);
 * socket.destroy();
 * accepted.close();
 * listener.close();
 * ```
 */
export function socketConnector(): (target: SocketTarget) => net.Socket {
  let next = 0;
  return (target) => {
    if (typeof target.path === "string") return net.connect({ path: target.path });
    const i = next++ % Math.max(1, target.host.length);
    const socket = net.connect({
      host: target.host[i] ?? "localhost",
      port: target.port[i] ?? 5432,
    });
    socket.setNoDelay(true);
    return socket;
  };
}
