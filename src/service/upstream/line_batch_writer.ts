/**
 * Writes lines to a byte stream in order, each line once, and the lines
 * that come while a write is in flight together in the next one. A lone
 * line is written at once; a burst (a batch's hundred replies, a hundred
 * requests to an upstream server) takes a few writes instead of one each:
 * every write is a system call and wakes the reader on the other end of
 * the pipe, and on a loaded machine each wake-up can cost the writer its
 * CPU.
 *
 * @module
 */

interface Pending {
  readonly line: string;
  readonly written: PromiseWithResolvers<void>;
}

/**
 * Lines to one writer, batched while a write is in flight.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LineBatchWriter } from "./line_batch_writer.ts";
 * const chunks: string[] = [];
 * const sink = new WritableStream<Uint8Array>({
 *   write: (chunk) => void chunks.push(new TextDecoder().decode(chunk)),
 * });
 * const lines = new LineBatchWriter(sink.getWriter());
 * await Promise.all([lines.write("a\n"), lines.write("b\n"), lines.write("c\n")]);
 * assert.deepEqual(chunks, ["a\n", "b\nc\n"]);
 * ```
 */
export class LineBatchWriter {
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #encoder = new TextEncoder();
  #pending: Pending[] = [];
  /** The writes in progress, settled once every line given so far is written or failed. */
  #draining: Promise<void> | undefined;

  /** @param writer where the lines go, in order */
  constructor(writer: WritableStreamDefaultWriter<Uint8Array>) {
    this.#writer = writer;
  }

  /**
   * Writes `line` (its own newline included) after every line given before
   * it; resolves once it is written, rejects with the writer's error.
   */
  write(line: string): Promise<void> {
    const written = Promise.withResolvers<void>();
    this.#pending.push({ line, written });
    this.#draining ??= this.#drain();
    return written.promise;
  }

  /** Resolves once every line given so far is written (or failed); never rejects. */
  settled(): Promise<void> {
    return this.#draining ?? Promise.resolve();
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending;
      this.#pending = [];
      const text = batch.length === 1
        ? (batch[0] as Pending).line
        : batch.map(({ line }) => line).join("");
      try {
        await this.#writer.write(this.#encoder.encode(text));
        for (const { written } of batch) written.resolve();
      } catch (error) {
        for (const { written } of batch) written.reject(error);
      }
    }
    this.#draining = undefined;
  }
}
