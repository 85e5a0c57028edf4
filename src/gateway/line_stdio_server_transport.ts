/**
 * The server side of MCP's stdio transport for `spillway serve --stdio`:
 * newline-delimited JSON-RPC read from stdin, written to stdout. The SDK's
 * own `StdioServerTransport` rescans its whole read buffer on every chunk
 * (a client sending a 5 MB argument waits ~600 ms for it under Deno, and
 * more than 10 MB is refused) and writes stdout synchronously, blocking the
 * event loop while a slow client reads. This one frames lines with the same
 * linear {@linkcode JsonRpcLineReader} as the upstream client transport,
 * has no size limit, and writes through stdout's stream, in order.
 *
 * @module
 */

import type { JSONRPCMessage, Transport } from "../service/sdk.ts";
import { JsonRpcLineReader } from "../service/upstream/json_rpc_line_reader.ts";
import { LineBatchWriter } from "../service/upstream/line_batch_writer.ts";

/**
 * One client on a pair of byte streams (stdin and stdout by default).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LineStdioServerTransport } from "./line_stdio_server_transport.ts";
 * const input = new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
 * const written: string[] = [];
 * const transport = new LineStdioServerTransport({
 *   readable: ReadableStream.from([input]),
 *   writable: new WritableStream({ write: (chunk) => void written.push(new TextDecoder().decode(chunk)) }),
 * });
 * const received: unknown[] = [];
 * transport.onmessage = (message) => void received.push(message);
 * const closed = new Promise<void>((resolve) => transport.onclose = resolve);
 * await transport.start();
 * await transport.send({ jsonrpc: "2.0", id: 1, result: {} });
 * await closed; // the input ended
 * assert.deepEqual(received, [{ jsonrpc: "2.0", id: 1, method: "ping" }]);
 * assert.deepEqual(written, ['{"jsonrpc":"2.0","id":1,"result":{}}\n']);
 * ```
 */
export class LineStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #readable: ReadableStream<Uint8Array>;
  readonly #writable: WritableStream<Uint8Array>;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  /** Our messages, in order; a burst of them (a batch's replies) goes out in a few writes. */
  #lines: LineBatchWriter | undefined;
  #closed: Promise<void> | undefined;
  readonly #ended = Promise.withResolvers<void>();

  /**
   * @param streams where the client's messages come from and ours go.
   *   Default: this process's stdin and stdout.
   */
  constructor(
    streams: {
      readonly readable: ReadableStream<Uint8Array>;
      readonly writable: WritableStream<Uint8Array>;
    } = { readable: Deno.stdin.readable, writable: Deno.stdout.writable },
  ) {
    this.#readable = streams.readable;
    this.#writable = streams.writable;
  }

  /** Whether the transport is closing or closed (the client's input ended, or it was closed). */
  get closing(): boolean {
    return this.#closed !== undefined;
  }

  /** Resolves when the client's input ended (it closed our stdin) or the transport was closed. */
  get ended(): Promise<void> {
    return this.#ended.promise;
  }

  /** Starts reading; resolves at once. */
  start(): Promise<void> {
    if (this.#reader !== undefined) throw new Error("LineStdioServerTransport already started");
    this.#reader = this.#readable.getReader();
    this.#writer = this.#writable.getWriter();
    this.#lines = new LineBatchWriter(this.#writer);
    void this.#read(this.#reader).then(() => this.close());
    return Promise.resolve();
  }

  /**
   * Writes one message and its newline; resolves once it is written (a
   * client that reads slowly holds the next message back, not the event loop).
   *
   * @throws {Error} when the transport is not started or is closed, or stdout broke
   */
  async send(message: JSONRPCMessage): Promise<void> {
    const lines = this.#lines;
    if (lines === undefined || this.#closed !== undefined) {
      throw new Error("LineStdioServerTransport is not open");
    }
    await lines.write(`${JSON.stringify(message)}\n`);
  }

  /** Stops reading and writing (stdin and stdout stay open for the process); calls `onclose` once. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      const reader = this.#reader;
      const writer = this.#writer;
      await reader?.cancel().catch(() => {});
      reader?.releaseLock();
      // Let the messages being written out before giving stdout back.
      await this.#lines?.settled();
      writer?.releaseLock();
      this.#ended.resolve();
      this.onclose?.();
    })();
    return this.#closed;
  }

  async #read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const lines = new JsonRpcLineReader({
      onMessage: (message) => this.onmessage?.(message),
      // JSON-RPC would answer with a parse error of id null, but MCP clients
      // (the SDK's among them) take a null id for request 0: report it only.
      onMalformed: (line) =>
        this.onerror?.(new Error(`the client sent ${line.problem}: ${line.preview}; skipped`)),
      onError: (error) => this.onerror?.(error),
    }, { ending: "closing stdin" });
    await lines.readAll(reader, (error) => {
      if (this.#closed === undefined) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }
}
