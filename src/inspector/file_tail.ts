/**
 * The lines a file gained since it was last read: how the inspector follows
 * an inspection file that a running `query --inspect FILE` is still
 * writing. Nothing watches the file: each `read()` takes what was appended
 * since the last one, so a reader that stops asking leaves nothing running.
 *
 * @module
 */

import { readFull } from "../files/read_full.ts";

/** What {@linkcode FileTail.read} found. */
export interface TailRead {
  /** Whole lines appended since the last read (a line still being written waits for its newline). */
  readonly lines: readonly string[];
  /** The file was cut shorter or replaced (a new run writes it anew): start over from `lines`. */
  readonly restarted: boolean;
  /** The file does not exist (yet). */
  readonly missing: boolean;
}

/**
 * Reads a growing file line by line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileTail } from "./file_tail.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "one\ntw");
 * const tail = new FileTail(path);
 * assert.deepEqual((await tail.read()).lines, ["one"]);
 * await Deno.writeTextFile(path, "o\n", { append: true });
 * assert.deepEqual((await tail.read()).lines, ["two"]);
 * await Deno.remove(path);
 * ```
 */
export class FileTail {
  readonly #path: string;
  #decoder = new TextDecoder();
  #offset = 0;
  #partial = "";
  #identity: string | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  /** The path followed. */
  get path(): string {
    return this.#path;
  }

  /** Reads what was appended since the last read. */
  async read(): Promise<TailRead> {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(this.#path, { read: true });
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      const restarted = this.#offset > 0;
      this.#reset(undefined);
      return { lines: [], restarted, missing: true };
    }
    try {
      const info = await file.stat();
      const identity = `${info.dev}:${info.ino}`;
      const restarted = (this.#identity !== undefined && identity !== this.#identity) ||
        info.size < this.#offset;
      if (restarted) this.#reset(identity);
      this.#identity = identity;
      const lines = await this.#readFrom(file, info.size);
      return { lines, restarted, missing: false };
    } finally {
      file.close();
    }
  }

  #reset(identity: string | undefined): void {
    this.#offset = 0;
    this.#partial = "";
    this.#decoder = new TextDecoder();
    this.#identity = identity;
  }

  async #readFrom(file: Deno.FsFile, size: number): Promise<string[]> {
    if (size <= this.#offset) return [];
    await file.seek(this.#offset, Deno.SeekMode.Start);
    const buffer = new Uint8Array(size - this.#offset);
    const filled = await readFull(file, buffer);
    this.#offset += filled;
    const text = this.#partial + this.#decoder.decode(buffer.subarray(0, filled), { stream: true });
    const lines = text.split("\n");
    this.#partial = lines.pop() ?? "";
    return lines;
  }
}
