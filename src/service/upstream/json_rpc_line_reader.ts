/**
 * Turns the bytes an MCP server writes to stdout into JSON-RPC messages:
 * the reading half of {@linkcode LineStdioClientTransport}, kept apart from
 * the process handling so it can be tested and benchmarked on recorded
 * bytes.
 *
 * Each line is framed by {@linkcode LineSplitter} (linear in the input, and
 * releasing a line's bytes as soon as they are decoded), decoded from UTF-8
 * once, `JSON.parse`d once and checked against the SDK's
 * `JSONRPCMessageSchema`. The check costs ≈0.2 ms for a 5 MB result (it looks
 * at the envelope, not inside the strings), so it stays: a malformed line is
 * reported instead of reaching the protocol layer.
 *
 * @module
 */

import { JSONRPCMessageSchema } from "../sdk.ts";
import type { JSONRPCMessage } from "../sdk.ts";
import { LineSplitter } from "./line_splitter.ts";

/**
 * A push parser for newline-delimited JSON-RPC. Blank lines are skipped;
 * lines that are not JSON, or not JSON-RPC messages, are reported to
 * `onError` and skipped (servers that log to stdout must not kill the
 * connection).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { JsonRpcLineReader } from "./json_rpc_line_reader.ts";
 * const messages: unknown[] = [];
 * const reader = new JsonRpcLineReader((m) => messages.push(m), (e) => assert.fail(e));
 * reader.push(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"result":{}}\n\n{"jsonrpc":"2.0",'));
 * reader.push(new TextEncoder().encode('"method":"ping","id":2}\n'));
 * reader.end();
 * assert.deepEqual(messages, [
 *   { jsonrpc: "2.0", id: 1, result: {} },
 *   { jsonrpc: "2.0", id: 2, method: "ping" },
 * ]);
 * ```
 */
export class JsonRpcLineReader {
  readonly #onMessage: (message: JSONRPCMessage) => void;
  readonly #onError: (error: Error) => void;
  readonly #splitter = new LineSplitter();
  readonly #decoder = new TextDecoder();

  /**
   * Creates a reader for one stream.
   *
   * @param onMessage receives every message, in order
   * @param onError receives malformed lines and an unterminated last line
   */
  constructor(onMessage: (message: JSONRPCMessage) => void, onError: (error: Error) => void) {
    this.#onMessage = onMessage;
    this.#onError = onError;
  }

  /** Bytes of a message not yet terminated by its newline. */
  get pendingBytes(): number {
    return this.#splitter.pendingBytes;
  }

  /**
   * Feeds the next bytes; delivers every message they complete.
   *
   * @param chunk the next bytes of the stream (may be a view; not kept after the call unless pending)
   */
  push(chunk: Uint8Array): void {
    // Decode inside the callback (the line's bytes are freed right after it),
    // parse after it: the bytes and the parsed result never coexist.
    const texts: string[] = [];
    this.#splitter.push(chunk, (line) => texts.push(this.#decoder.decode(line)));
    for (const text of texts) this.#deliver(text);
  }

  /** Ends the stream; an unterminated non-blank last line is reported as an error. */
  end(): void {
    const rest = this.#splitter.end();
    if (rest.byteLength > 0 && this.#decoder.decode(rest).trim() !== "") {
      this.#onError(
        new Error(
          `upstream server closed stdout inside a message (${rest.byteLength} bytes unterminated)`,
        ),
      );
    }
  }

  #deliver(line: string): void {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.#onError(
        new SyntaxError(`upstream server wrote a line that is not JSON: ${preview(line)}`),
      );
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.#onError(
        new TypeError(
          `upstream server wrote a line that is not a JSON-RPC message: ${preview(line)}`,
        ),
      );
      return;
    }
    try {
      this.#onMessage(parsed.data);
    } catch (error) {
      // A throwing handler must not stop the stream: later messages still count.
      this.#onError(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

/** The first 200 characters of a line, quoted, for error messages. */
function preview(line: string): string {
  return JSON.stringify(line.length > 200 ? `${line.slice(0, 200)}…` : line);
}
