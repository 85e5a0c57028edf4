/**
 * Test helper: a WebSocket server on 127.0.0.1 that keeps every text
 * message it receives, the way an inspector behind Stately's relay would
 * see what spillway sends (`--inspect-ws`, `inspect --replay … --to`).
 *
 * @module
 */

/** A listening collector. */
export interface WsCollector extends AsyncDisposable {
  /** Where to send, `ws://127.0.0.1:PORT/`. */
  readonly url: string;
  /** Every message received, as sent (raw text), in order. */
  readonly raw: string[];
  /** Resolves once `count` connections have closed. */
  closed(count?: number): Promise<void>;
}

/** Starts a collector on a free port of 127.0.0.1. */
export function wsCollector(): WsCollector {
  const raw: string[] = [];
  let closings = 0;
  const waiting: { count: number; resolve: () => void }[] = [];
  const settle = () => {
    for (const wait of waiting.filter((w) => closings >= w.count)) {
      waiting.splice(waiting.indexOf(wait), 1);
      wait.resolve();
    }
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const { socket, response } = Deno.upgradeWebSocket(request);
    socket.onmessage = (event) => {
      if (typeof event.data === "string") raw.push(event.data);
    };
    socket.onclose = () => {
      closings += 1;
      settle();
    };
    return response;
  });
  return {
    url: `ws://127.0.0.1:${server.addr.port}/`,
    raw,
    closed(count = 1) {
      return new Promise((resolve) => {
        waiting.push({ count, resolve });
        settle();
      });
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}
