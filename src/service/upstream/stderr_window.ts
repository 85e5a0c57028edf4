/**
 * Bounds what an upstream server's stderr puts in spillway's own: at most
 * {@linkcode STDERR_WINDOW_BYTES} per server in any window of
 * {@linkcode STDERR_WINDOW_MS}, the rest dropped and counted. A server that
 * floods its stderr (a debug build, a crash loop printing a stack each
 * time) would otherwise copy every byte into spillway's stderr, and through
 * it into a terminal or a log file. When a window's share runs out, one line
 * says so; when a window with drops is over (the next line arrives in a new
 * window, or the server's stderr ends), one line says how much was dropped.
 * Text is cut at a line end where it can be, so what is shown is whole
 * lines.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { ByteSize } from "../../size/byte_size.ts";
import type { StderrSink } from "./stderr_sink.ts";

/** The most of one server's stderr shown per window: 64 KiB. */
export const STDERR_WINDOW_BYTES = 64 * 1024;

/** The window: a minute. */
export const STDERR_WINDOW_MS = 60_000;

/** Options of {@linkcode StderrWindow}. */
export interface StderrWindowOptions {
  /** Who is speaking, as the drop lines name it: `mcp.<server>`. */
  readonly label: string;
  /** Where what is shown goes (text as it came, and the drop lines). */
  readonly sink: (text: string) => void;
  /** Bytes shown per window. Default: {@linkcode STDERR_WINDOW_BYTES}. */
  readonly budgetBytes?: number;
  /** The window's length in ms. Default: {@linkcode STDERR_WINDOW_MS}. */
  readonly windowMs?: number;
  /** The clock, in ms. Default: `Date.now`. */
  readonly now?: () => number;
}

/**
 * One server's stderr, bounded per window. One instance serves every
 * connection to the server, so a server restarted again and again shares
 * one budget.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { StderrWindow } from "./stderr_window.ts";
 * let shown = "";
 * const window = new StderrWindow({ label: "mcp.x", sink: (t) => shown += t, budgetBytes: 8 });
 * window.write("one\ntwo\nthree\n");
 * window.end();
 * assert.equal(
 *   shown,
 *   "one\ntwo\n[mcp.x: more than 8 B of stderr in 60 s; the rest of this window is dropped]\n" +
 *     "[mcp.x: dropped 6 B of stderr]\n",
 * );
 * ```
 */
export class StderrWindow implements StderrSink {
  readonly #label: string;
  readonly #sink: (text: string) => void;
  readonly #budget: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  #windowStart: number;
  #used = 0;
  /** Whether this window's share ran out: what comes is dropped until the next. */
  #full = false;
  #dropped = 0;
  #atLineStart = true;

  /**
   * @param options who speaks, where it goes, and the budget
   * @throws {RangeError} when the budget or the window is not a positive integer
   */
  constructor(options: StderrWindowOptions) {
    this.#label = options.label;
    this.#sink = options.sink;
    this.#budget = options.budgetBytes ?? STDERR_WINDOW_BYTES;
    this.#windowMs = options.windowMs ?? STDERR_WINDOW_MS;
    for (const [what, value] of [["budgetBytes", this.#budget], ["windowMs", this.#windowMs]]) {
      if (!Number.isSafeInteger(value) || (value as number) <= 0) {
        throw new RangeError(`${what} must be a positive integer, got ${value}`);
      }
    }
    this.#now = options.now ?? Date.now;
    this.#windowStart = this.#now();
  }

  /** Takes the next text the server wrote. */
  write(text: string): void {
    const now = this.#now();
    if (now - this.#windowStart >= this.#windowMs) {
      this.#reportDropped();
      this.#windowStart = now;
      this.#used = 0;
      this.#full = false;
    }
    if (this.#full) {
      this.#dropped += Buffer.byteLength(text, "utf8");
      return;
    }
    const bytes = Buffer.byteLength(text, "utf8");
    if (this.#used + bytes <= this.#budget) {
      this.#show(text);
      this.#used += bytes;
      return;
    }
    const shown = wholeLinesWithin(text, this.#budget - this.#used);
    if (shown !== "") this.#show(shown);
    this.#dropped += bytes - Buffer.byteLength(shown, "utf8");
    this.#full = true;
    const seconds = this.#windowMs / 1000;
    this.#line(
      `[${this.#label}: more than ${ByteSize.fromBytes(this.#budget).human()} of stderr in ` +
        `${seconds} s; the rest of this window is dropped]`,
    );
  }

  /** The server's stderr ended (it exited, or was stopped): says what was dropped, if anything. */
  end(): void {
    this.#reportDropped();
  }

  #reportDropped(): void {
    if (this.#dropped === 0) return;
    const dropped = ByteSize.fromBytes(this.#dropped).human();
    this.#dropped = 0;
    this.#line(`[${this.#label}: dropped ${dropped} of stderr]`);
  }

  #show(text: string): void {
    this.#sink(text);
    this.#atLineStart = text.endsWith("\n");
  }

  /** One line of spillway's own, on a line of its own. */
  #line(text: string): void {
    this.#sink(`${this.#atLineStart ? "" : "\n"}${text}\n`);
    this.#atLineStart = true;
  }
}

/** The longest head of `text` that ends a line and is at most `bytes` of UTF-8. */
function wholeLinesWithin(text: string, bytes: number): string {
  if (bytes <= 0) return "";
  // A UTF-16 unit is at least one byte: no line end past index `bytes` can fit.
  let end = text.lastIndexOf("\n", bytes - 1);
  while (end !== -1 && Buffer.byteLength(text.slice(0, end + 1), "utf8") > bytes) {
    end = text.lastIndexOf("\n", end - 1);
  }
  return end === -1 ? "" : text.slice(0, end + 1);
}
