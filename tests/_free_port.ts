/**
 * A loopback port nothing listens on now, for a server a test or bench
 * starts with a port of its own (PostgreSQL, HAProxy, a peer gateway).
 *
 * @module
 */

/** A free loopback port (free when asked: another process may take it later). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}
