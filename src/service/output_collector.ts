/**
 * Collects a tool's output as it streams in, holding only what could still
 * be delivered. The bytes are decoded as UTF-8 as they arrive (invalid bytes
 * become U+FFFD, a BOM is kept) and, once the text outgrows the sink's
 * window, written to the sink's file as the exact UTF-8 of that text, while
 * memory keeps only its head, a tail of at least the window, the exact size
 * and the line count. A smaller output stays a plain string, as before.
 * For a tool whose truncation is `json` or `auto` (the Host says so, as it
 * says the window's size), a windowed text is also scanned as JSON as it
 * passes (marked where the head ends), so that a json cut of the window is
 * exactly the cut of the whole text: the scan is the few numbers per level
 * of nesting that cut needs from beyond the head. It stops at the first
 * character that is not JSON (a log, JSON lines); through JSON it costs
 * about a `JSON.parse`, which is why other tools' outputs are not scanned.
 * Collected outputs compose: a failed local tool's response is its status,
 * its stderr and its stdout, each collected on its own and then appended in
 * that order to the collector of the response, without ever being held whole.
 *
 * @module
 */

import type { ResponseWindow } from "../review/tool_call_response.ts";
import { utf8Length } from "../size/cap_text.ts";
import { JsonScanner } from "../size/json_scanner.ts";
import { longestHead, longestTail } from "../size/_utf8_edges.ts";
import type { OutputFile, OutputSink } from "./output_sink.ts";
import type { ToolResult } from "./tool_source.ts";

/** What a collection produced. */
export type CollectedOutput =
  /** The whole text (it fit the window, or there was no sink). */
  | { readonly kind: "whole"; readonly text: string }
  /** A window on a text too large to hold; the whole text is in `window.path`. */
  | {
    readonly kind: "window";
    /** The text's head (what the response's `content` holds). */
    readonly head: string;
    readonly window: ResponseWindow;
    /** The blob reference, when the sink stores outputs (`spill = true`). */
    readonly ref?: string;
  };

const encoder = new TextEncoder();

/** How an {@linkcode OutputCollector} collects. */
export interface OutputCollectorOptions {
  /**
   * Whether a windowed text is scanned as JSON as it streams (the tool's
   * truncation is `json` or `auto`). Default `false`.
   */
  readonly scansJson?: boolean | undefined;
}

/** Counts `\n` in `text`. */
function newlines(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

/**
 * Streams one output into memory, or into a sink's file past its window.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OutputCollector } from "./output_collector.ts";
 * import { spoolSink } from "./output_sink.ts";
 * const collector = new OutputCollector(spoolSink(await Deno.makeTempDir(), 8));
 * await collector.push(new TextEncoder().encode("line 1\nline 2\nline 3\n"));
 * const output = await collector.finish();
 * assert.equal(output.kind, "window");
 * if (output.kind === "window") {
 *   assert.equal(output.head, "line 1\nl");
 *   assert.equal(output.window.tail, "\nline 3\n"); // the last 8 bytes
 *   assert.equal(output.window.bytes, 21);
 *   assert.equal(await Deno.readTextFile(output.window.path), "line 1\nline 2\nline 3\n");
 * }
 * ```
 */
export class OutputCollector {
  readonly #sink: OutputSink | undefined;
  readonly #scansJson: boolean;
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /** Everything so far, until the text outgrows the window. */
  #pieces: string[] = [];
  #heldBytes = 0;
  /** Once it has: the head, and the last bytes written (a ring). */
  #head = "";
  #tail: ByteRing | undefined;
  #file: OutputFile | undefined;
  /** The text as JSON, from the moment it outgrew the window (see the module doc). */
  #json: JsonScanner | undefined;
  /** Encoding room reused for every chunk written, so the stream allocates nothing per chunk. */
  #scratch = new Uint8Array(0);
  #bytes = 0;
  #newlines = 0;
  #endsWithNewline = false;
  #failure: unknown;
  #ended = false;

  /**
   * @param sink where a large output goes; without one, everything is held
   * @param options whether a windowed text is scanned as JSON (default not)
   */
  constructor(sink: OutputSink | undefined, options: OutputCollectorOptions = {}) {
    this.#sink = sink;
    this.#scansJson = options.scansJson ?? false;
  }

  /** The UTF-8 size of the text so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether the text so far ends with a newline. */
  get endsWithNewline(): boolean {
    return this.#endsWithNewline;
  }

  /**
   * Takes the next chunk of output. Never rejects: a file that cannot be
   * written fails {@linkcode finish} instead, and the rest of the output is
   * read and dropped, so the tool is never left blocked on a full pipe.
   */
  async push(chunk: Uint8Array): Promise<void> {
    if (this.#failure !== undefined || this.#ended) return;
    await this.#take(this.#decoder.decode(chunk, { stream: true }));
  }

  /** Takes the next piece of text (a heading between outputs). Never rejects, as {@linkcode push}. */
  async pushText(text: string): Promise<void> {
    if (this.#failure !== undefined || this.#ended) return;
    await this.#take(text);
  }

  /**
   * Ends this output and appends its whole text to `target`, from memory or
   * a chunk at a time from its file, which is then dropped.
   *
   * @throws whatever writing this output's file threw (its file is dropped)
   */
  async appendTo(target: OutputCollector): Promise<void> {
    await this.end();
    try {
      if (this.#failure !== undefined) throw this.#failure;
      if (this.#file === undefined) await target.pushText(this.#pieces.join(""));
      // The file is the text's exact UTF-8: it decodes back to the same text.
      else for await (const chunk of this.#file.read()) await target.push(chunk);
    } finally {
      this.#pieces = [];
      await this.abort();
    }
  }

  /** Ends the input (the decoder's last bytes). Idempotent. */
  async end(): Promise<void> {
    if (this.#ended) return;
    if (this.#failure === undefined) await this.#take(this.#decoder.decode());
    this.#ended = true;
  }

  /**
   * The collected text.
   *
   * @throws whatever writing the sink's file threw
   */
  async finish(): Promise<CollectedOutput> {
    await this.end();
    if (this.#failure !== undefined) {
      await this.abort();
      throw this.#failure;
    }
    const file = this.#file;
    if (file === undefined || this.#tail === undefined) {
      return { kind: "whole", text: this.#pieces.join("") };
    }
    const finished = await file.finish();
    // The last window's worth, even where it overlaps the head (a text under
    // twice the window): a tail-only cut takes up to a window from the end.
    const tail = longestTail(this.#tail.text(), this.#sink?.windowBytes ?? 0).text;
    const lines = this.#newlines + (this.#endsWithNewline ? 0 : 1);
    return {
      kind: "window",
      head: this.#head,
      window: {
        tail,
        bytes: this.#bytes,
        lines,
        path: finished.path,
        temporary: finished.temporary,
        ...(this.#json === undefined ? {} : { json: this.#json.end() }),
      },
      ...(finished.ref === undefined ? {} : { ref: finished.ref }),
    };
  }

  /** Drops the file, if one was started. */
  async abort(): Promise<void> {
    this.#ended = true;
    await this.#file?.abort();
  }

  async #take(text: string): Promise<void> {
    if (text === "") return;
    const size = utf8Length(text);
    this.#bytes += size;
    this.#newlines += newlines(text);
    this.#endsWithNewline = text.endsWith("\n");
    const sink = this.#sink;
    try {
      if (this.#file === undefined) {
        this.#pieces.push(text);
        this.#heldBytes += size;
        if (sink === undefined || this.#heldBytes <= sink.windowBytes) return;
        // Outgrew the window: everything so far goes to the file, the head stays.
        const all = this.#pieces.join("");
        this.#pieces = [];
        this.#head = longestHead(all, sink.windowBytes).text;
        // Three bytes more than the window: the ring may start inside a character.
        this.#tail = new ByteRing(sink.windowBytes + 3);
        if (this.#scansJson) {
          this.#json = new JsonScanner();
          this.#json.push(this.#head);
          this.#json.mark();
          this.#json.push(all.slice(this.#head.length));
        }
        this.#file = await sink.open();
        await this.#write(all);
      } else {
        this.#json?.push(text);
        await this.#write(text);
      }
    } catch (error) {
      this.#failure = error;
      this.#pieces = [];
      this.#tail = undefined;
    }
  }

  /** Writes `text` as UTF-8 to the file and the tail ring, through the reused buffer. */
  async #write(text: string): Promise<void> {
    const file = this.#file;
    if (file === undefined) return;
    for (let at = 0; at < text.length;) {
      // A UTF-16 unit takes at most 3 bytes: a slice of a third of the room always fits.
      if (this.#scratch.length === 0) this.#scratch = new Uint8Array(SCRATCH_BYTES);
      let end = Math.min(text.length, at + SCRATCH_BYTES / 3);
      const last = text.charCodeAt(end - 1);
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--; // keep a pair together
      const { written } = encoder.encodeInto(text.slice(at, end), this.#scratch);
      const bytes = this.#scratch.subarray(0, written);
      this.#tail?.push(bytes);
      await file.write(bytes);
      at = end;
    }
  }
}

/** Room for one encoded slice (a chunk read from a pipe is 64 KiB). */
const SCRATCH_BYTES = 3 * 64 * 1024;

/** The last `capacity` bytes pushed into it. */
class ByteRing {
  readonly #buffer: Uint8Array;
  #end = 0;
  #filled = 0;

  constructor(capacity: number) {
    this.#buffer = new Uint8Array(capacity);
  }

  push(bytes: Uint8Array): void {
    const capacity = this.#buffer.length;
    const from = bytes.length > capacity ? bytes.subarray(bytes.length - capacity) : bytes;
    const first = Math.min(from.length, capacity - this.#end);
    this.#buffer.set(from.subarray(0, first), this.#end);
    this.#buffer.set(from.subarray(first), 0);
    this.#end = (this.#end + from.length) % capacity;
    this.#filled = Math.min(capacity, this.#filled + from.length);
  }

  /** The bytes held, decoded from the first character that starts in them. */
  text(): string {
    const capacity = this.#buffer.length;
    const start = (this.#end - this.#filled + capacity) % capacity;
    const bytes = new Uint8Array(this.#filled);
    const first = Math.min(this.#filled, capacity - start);
    bytes.set(this.#buffer.subarray(start, start + first));
    bytes.set(this.#buffer.subarray(0, this.#filled - first), first);
    let skip = 0;
    while (skip < bytes.length && (bytes[skip]! & 0xc0) === 0x80) skip++;
    return new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes.subarray(skip));
  }
}

/**
 * The tool result of a collected text: one text block (the whole text, or
 * the window's head), with the window and its blob riding along.
 */
export function collectedResult(output: CollectedOutput, isError = false): ToolResult {
  const error = isError ? { isError: true } : {};
  if (output.kind === "whole") return { content: [{ type: "text", text: output.text }], ...error };
  const { head, window, ref } = output;
  return {
    content: [{ type: "text", text: head }],
    ...error,
    window,
    ...(ref === undefined ? {} : { spilled: { ref, bytes: window.bytes } }),
  };
}
