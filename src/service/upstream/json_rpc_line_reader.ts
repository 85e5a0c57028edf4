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
 * reported, with the request ids it seems to answer, instead of reaching the
 * protocol layer.
 *
 * @module
 */

import { JSONRPCMessageSchema } from "../sdk.ts";
import type { JSONRPCMessage, RequestId } from "../sdk.ts";
import { releaseBytes } from "../subprocess/release_bytes.ts";
import { LineSplitter } from "./line_splitter.ts";
import { quotedPreview } from "./malformed_reply_error.ts";

/** A line that is not a JSON-RPC message. */
export interface MalformedLine {
  /** What is wrong: `a line that is not JSON`, `a line that is not a JSON-RPC message`. */
  readonly problem: string;
  /** The line's first 200 characters, quoted as JSON. */
  readonly preview: string;
  /**
   * The ids of the requests the line seems to answer: the top-level `id` of
   * a parsed reply, or for text that is not JSON, the `"id": …` members
   * found near its start and end (where serializers put a message's own
   * id). Empty when it names none, or when it parses as a request of the
   * server's.
   */
  readonly ids: readonly RequestId[];
  /**
   * Whether it parses as a reply (an object with `result` or `error` and no
   * `method`). With no `ids`, such a line is a reply that names no request
   * (`"id": null`, an id that is no request id, or none).
   */
  readonly reply: boolean;
}

/** Callbacks of {@linkcode JsonRpcLineReader}. */
export interface JsonRpcLineReaderCallbacks {
  /** Receives every message, in order. */
  readonly onMessage: (message: JSONRPCMessage) => void;
  /** Receives every line that is not a JSON-RPC message, and an unterminated last line. */
  readonly onMalformed: (line: MalformedLine) => void;
  /** Receives what `onMessage` throws; the stream goes on. */
  readonly onError: (error: Error) => void;
}

/** Bytes of a line's head and tail searched for `"id"` members when it is not JSON. */
const ID_SCAN_CHARS = 4096;

/** A `"id": 12` or `"id": "abc"` member, not inside an escaped string (`\"id\"`). */
const ID_MEMBER = /(?<!\\)"id"\s*:\s*(-?\d{1,15}(?![\d.eE])|"[^"\\]{1,200}")/g;

/**
 * A push parser for newline-delimited JSON-RPC. Blank lines are skipped;
 * lines that are not JSON, or not JSON-RPC messages, are reported to
 * `onMalformed` and skipped (servers that log to stdout must not kill the
 * connection).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { JsonRpcLineReader, type MalformedLine } from "./json_rpc_line_reader.ts";
 * const messages: unknown[] = [];
 * const malformed: MalformedLine[] = [];
 * const reader = new JsonRpcLineReader({
 *   onMessage: (m) => messages.push(m),
 *   onMalformed: (line) => malformed.push(line),
 *   onError: (error) => assert.fail(error),
 * });
 * reader.push(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"result":{}}\n\n{"jsonrpc":"2.0",'));
 * reader.push(new TextEncoder().encode('"method":"ping","id":2}\n{"jsonrpc":"2.0","id":3,"re\n'));
 * reader.end();
 * assert.deepEqual(messages, [
 *   { jsonrpc: "2.0", id: 1, result: {} },
 *   { jsonrpc: "2.0", id: 2, method: "ping" },
 * ]);
 * assert.deepEqual(malformed, [{
 *   problem: "a line that is not JSON",
 *   preview: '"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":3,\\"re"',
 *   ids: [3],
 *   reply: false,
 * }]);
 * ```
 */
export class JsonRpcLineReader {
  readonly #callbacks: JsonRpcLineReaderCallbacks;
  readonly #splitter = new LineSplitter();
  readonly #decoder = new TextDecoder();
  readonly #ending: string;

  /**
   * Creates a reader for one stream.
   *
   * @param callbacks where messages, malformed lines and handler errors go
   * @param options `ending`: what ends the stream, as an unterminated last
   *   line is reported ("… before closing stdout"). Default: `"closing stdout"`.
   */
  constructor(callbacks: JsonRpcLineReaderCallbacks, options: { readonly ending?: string } = {}) {
    this.#callbacks = callbacks;
    this.#ending = options.ending ?? "closing stdout";
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

  /**
   * Reads `reader` to its end, delivering every message as its line
   * completes, then ends the stream. A failed read ends it too, after
   * `onReadError` (the owner knows whether it was closing on purpose).
   *
   * @param reader the stream's reader (each chunk's memory is released once pushed)
   * @param onReadError told of a read that failed
   */
  async readAll(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    onReadError: (error: unknown) => void,
  ): Promise<void> {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.push(value);
        releaseBytes(value);
      }
    } catch (error) {
      onReadError(error);
    }
    this.end();
  }

  /**
   * Ends the stream; an unterminated non-blank last line is reported as
   * malformed (it answers nothing: the server is going away, and the
   * requests it leaves waiting are lost with it).
   */
  end(): void {
    const rest = this.#splitter.end();
    if (rest.byteLength === 0) return;
    const text = this.#decoder.decode(rest);
    if (text.trim() === "") return;
    this.#callbacks.onMalformed({
      problem: `an unterminated last line (${rest.byteLength} bytes) before ${this.#ending}`,
      preview: quotedPreview(text),
      ids: [],
      reply: false,
    });
  }

  #deliver(line: string): void {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.#callbacks.onMalformed({
        problem: "a line that is not JSON",
        preview: quotedPreview(line),
        ids: scanIds(line),
        reply: false,
      });
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.#callbacks.onMalformed({
        problem: "a line that is not a JSON-RPC message",
        preview: quotedPreview(line),
        ids: replyId(value),
        reply: isReply(value),
      });
      return;
    }
    try {
      this.#callbacks.onMessage(parsed.data);
    } catch (error) {
      // A throwing handler must not stop the stream: later messages still count.
      this.#callbacks.onError(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

/** Whether a parsed value looks like a reply: an object with `result` or `error` and no method. */
function isReply(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  return !("method" in value) && ("result" in value || "error" in value);
}

/** The `id` of a parsed value that looks like a reply (an object with an id and no method). */
function replyId(value: unknown): RequestId[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
  if ("method" in value || !("id" in value)) return [];
  const { id } = value;
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? [id] : [];
}

/** The distinct `"id"` members near the start and the end of text that is not JSON. */
function scanIds(line: string): RequestId[] {
  const windows = line.length <= 2 * ID_SCAN_CHARS
    ? [line]
    : [line.slice(0, ID_SCAN_CHARS), line.slice(-ID_SCAN_CHARS)];
  const ids = new Set<RequestId>();
  for (const window of windows) {
    for (const match of window.matchAll(ID_MEMBER)) {
      const raw = match[1] ?? "";
      ids.add(raw.startsWith('"') ? raw.slice(1, -1) : Number(raw));
    }
  }
  return [...ids];
}
