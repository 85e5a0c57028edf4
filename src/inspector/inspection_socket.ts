/**
 * `--inspect-ws URL`: a run's inspection records sent to a WebSocket as
 * Stately's inspection protocol (`stately_messages.ts`), one JSON message
 * each, to the one address the person named. It connects once, before the
 * run: an address that does not answer is said then, and a connection lost
 * later is said once and not tried again (nothing retries in the
 * background).
 *
 * @module
 */

import type { InspectionRecord } from "./inspection_recorder.ts";
import type { InspectionSink } from "./inspection.ts";
import { StatelyMessages } from "./stately_messages.ts";

/** How long connecting, and sending what is pending at close, may take. */
export const INSPECT_SOCKET_TIMEOUT_MS = 5_000;

/**
 * `given` as a WebSocket address; with `contents`, a loopback one only
 * (contents never leave the machine).
 *
 * @throws {TypeError} when `given` is no `ws:` or `wss:` URL
 * @throws {RangeError} when `contents` is asked for an address off this machine
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { inspectSocketUrl } from "./inspection_socket.ts";
 * assert.equal(inspectSocketUrl("ws://127.0.0.1:8080", true).port, "8080");
 * assert.throws(() => inspectSocketUrl("ws://example.com/", true), RangeError);
 * assert.throws(() => inspectSocketUrl("http://127.0.0.1/", false), TypeError);
 * ```
 */
export function inspectSocketUrl(given: string, contents: boolean): URL {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new TypeError(`"${given}" is not a URL: give ws://HOST:PORT/…`);
  }
  if (url.protocol !== "ws:" && url.protocol !== "wss:") {
    throw new TypeError(`"${given}" is not a WebSocket address: give ws://… or wss://…`);
  }
  if (contents && !isLoopback(url.hostname)) {
    throw new RangeError(
      `contents go to this machine only, and ${url.hostname} is not a loopback address ` +
        "(use 127.0.0.1, ::1 or localhost, or leave contents out)",
    );
  }
  return url;
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** Options of {@linkcode InspectionSocket.connect}. */
export interface InspectionSocketOptions {
  /** Told once when the connection is lost before `close()`. Default: nothing is said. */
  readonly onLost?: (message: string) => void;
  /** How long connecting may take, in ms. Default {@linkcode INSPECT_SOCKET_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
}

/** Sends inspection records to a WebSocket as Stately's protocol. */
export class InspectionSocket implements InspectionSink {
  readonly #socket: WebSocket;
  readonly #messages = new StatelyMessages();
  readonly #closed: Promise<void>;
  #open = true;
  /** Messages sent, for the run's last word. */
  sent = 0;

  private constructor(socket: WebSocket, onLost: ((message: string) => void) | undefined) {
    this.#socket = socket;
    this.#closed = new Promise((resolve) => {
      socket.addEventListener("close", () => {
        if (this.#open) onLost?.(`the inspector at ${socket.url} closed the connection`);
        this.#open = false;
        resolve();
      }, { once: true });
    });
  }

  /**
   * Connects to `url`.
   *
   * @throws {Error} when it does not answer within the timeout, naming the address
   */
  static async connect(url: URL, options: InspectionSocketOptions = {}): Promise<InspectionSocket> {
    const socket = new WebSocket(url);
    const opened = Promise.withResolvers<void>();
    const timer = setTimeout(
      () =>
        opened.reject(
          new Error(`no answer within ${options.timeoutMs ?? INSPECT_SOCKET_TIMEOUT_MS} ms`),
        ),
      options.timeoutMs ?? INSPECT_SOCKET_TIMEOUT_MS,
    );
    socket.addEventListener("open", () => opened.resolve(), { once: true });
    socket.addEventListener("error", (event) => {
      opened.reject(new Error((event as ErrorEvent).message || "the connection failed"));
    }, { once: true });
    try {
      await opened.promise;
    } catch (error) {
      socket.close();
      throw new Error(`cannot connect to ${url.href}: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
    return new InspectionSocket(socket, options.onLost);
  }

  /** Sends the record's message (records the protocol does not carry are skipped). */
  write(record: InspectionRecord): void {
    if (!this.#open) return;
    const message = this.#messages.of(record);
    if (message === undefined) return;
    this.#socket.send(JSON.stringify(message));
    this.sent += 1;
  }

  /** Sends what is pending, then closes the connection and waits for it to close. */
  async close(): Promise<void> {
    if (this.#open) {
      this.#open = false;
      const deadline = Date.now() + INSPECT_SOCKET_TIMEOUT_MS;
      // Sends are queued by the runtime: let them drain before the closing handshake.
      while (this.#socket.bufferedAmount > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      this.#socket.close(1000, "the run ended");
    }
    await this.#closed;
  }
}
