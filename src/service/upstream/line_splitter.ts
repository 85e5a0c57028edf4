/**
 * Splits a byte stream into newline-delimited lines in time linear in its
 * total size: the framing of MCP's stdio transport. Each chunk is searched
 * for `\n` once, from where the previous line ended; the bytes of an
 * unfinished line are appended to one buffer of the splitter's, so every
 * byte is copied at most once. (The SDK's own reader re-concatenates and
 * re-scans its whole buffer on every chunk, which is quadratic.)
 *
 * Lines are bytes, not text: a multi-byte UTF-8 character split across two
 * chunks is only decoded once its line is whole, so it cannot be torn.
 *
 * There is no maximum line size. A pending line costs its size: it is kept
 * in a {@linkcode ByteBuffer} (grown in place, the chunks themselves are not
 * kept), which is freed as soon as the line's callback returns, without
 * waiting for the garbage collector. Decode the line in the callback and
 * parse it after: the bytes and the parsed result then never coexist.
 *
 * @module
 */

import { ByteBuffer } from "../subprocess/byte_buffer.ts";

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * An incremental `\n` splitter over `Uint8Array` chunks. A trailing `\r` is
 * removed from each line (CRLF framing is tolerated); the `\n` is never part
 * of a line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LineSplitter } from "./line_splitter.ts";
 * const splitter = new LineSplitter();
 * const lines: string[] = [];
 * const collect = (line: Uint8Array) => lines.push(new TextDecoder().decode(line));
 * splitter.push(new TextEncoder().encode('{"a":1}\n{"b"'), collect);
 * splitter.push(new TextEncoder().encode(":2}\r\n"), collect);
 * assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
 * assert.equal(splitter.pendingBytes, 0);
 * ```
 */
export class LineSplitter {
  readonly #pending = new ByteBuffer();

  /** Bytes received after the last complete line. */
  get pendingBytes(): number {
    return this.#pending.length;
  }

  /**
   * Feeds one chunk and calls `onLine` for every line it completes, in
   * order. A line is only valid during its callback: it may be a view into
   * `chunk`, or into the splitter's buffer, which is freed when the callback
   * returns. Decode it (or copy it) there.
   *
   * @param chunk the next bytes of the stream; not kept after the call
   * @param onLine receives each completed line, without its `\n` (and `\r`)
   */
  push(chunk: Uint8Array, onLine: (line: Uint8Array) => void): void {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end === -1) break;
      const part = chunk.subarray(start, end);
      start = end + 1;
      if (this.#pending.length === 0) {
        // The whole line is inside this chunk: no copy at all.
        onLine(trimCarriageReturn(part));
        continue;
      }
      this.#pending.append(part);
      try {
        onLine(trimCarriageReturn(this.#pending.bytes()));
      } finally {
        this.#pending.release();
      }
    }
    if (start < chunk.byteLength) this.#pending.append(chunk.subarray(start));
  }

  /**
   * Ends the stream: returns a copy of an unterminated last line (empty when
   * the stream ended on a newline) and resets the splitter.
   */
  end(): Uint8Array {
    const rest = this.#pending.bytes().slice();
    this.#pending.release();
    return rest;
  }
}

function trimCarriageReturn(line: Uint8Array): Uint8Array {
  const last = line.byteLength - 1;
  return last >= 0 && line[last] === CARRIAGE_RETURN ? line.subarray(0, last) : line;
}
