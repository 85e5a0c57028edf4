/**
 * The terminal side of a turn: the assistant's words, each call as it
 * starts, the first lines of each raw result (with a link to the full
 * result file, which keeps the tail the assistant may not get), and the
 * notices. Notices go to stderr and are shown under `--quiet` too: they are
 * the only sign that the assistant got less than the terminal showed.
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { join, relative } from "node:path";
import type { InlineResults, ResultsFileLink } from "../config/tool_vocabulary.ts";
import type { NoticeSink } from "../machines/turn_dependencies.ts";
import type { TurnObserver } from "../machines/turn_observer.ts";
import type { AssistantMessage } from "../provider/provider.ts";
import { formatNotice, type NoticeFact } from "../review/notice.ts";
import type { ToolCall } from "../review/tool_call.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import { ByteSize } from "../size/byte_size.ts";
import { utf8Length } from "../size/cap_text.ts";
import { plural } from "./plural.ts";
import { sanitizeForTerminal } from "./sanitize.ts";
import type { TerminalIo } from "./terminal_io.ts";

/** How a tool's results are shown (from its `style.*` config). */
export interface ResultStyle {
  readonly inlineResults: InlineResults;
  readonly resultsFileLink: ResultsFileLink;
}

/** Options of {@linkcode TerminalReporter}. */
export interface TerminalReporterOptions {
  readonly io: TerminalIo;
  /** Each tool's display style. */
  readonly styleFor: (tool: string) => ResultStyle;
  /** Where full results are written (created on first use). */
  readonly resultsDir: string;
  /** Only notices (and errors) are shown. Default false. */
  readonly quiet?: boolean;
  /** Paths are shown relative to this directory. Default: the current directory. */
  readonly cwd?: string;
}

/** Longest argument summary shown on a call line. */
const MAX_ARGUMENTS_SHOWN = 120;

/** Renders a turn on the terminal. */
export class TerminalReporter implements TurnObserver, NoticeSink {
  readonly #options: TerminalReporterOptions;
  readonly #cwd: string;
  #madeResultsDir = false;
  /** An answer is streaming in: its line is open. */
  #streaming = false;
  /** The last piece written ended a line. */
  #atLineStart = true;

  constructor(options: TerminalReporterOptions) {
    this.#options = options;
    this.#cwd = options.cwd ?? Deno.cwd();
  }

  /** Shows each piece of the answer as it arrives, after `assistant: `. */
  assistantText(delta: string): void {
    if (this.#options.quiet || delta === "") return;
    const head = this.#streaming ? "" : "assistant: ";
    this.#streaming = true;
    this.#atLineStart = delta.endsWith("\n");
    this.#options.io.stdout(sanitizeForTerminal(head + delta));
  }

  assistant(message: AssistantMessage): void {
    if (this.#options.quiet) return;
    if (this.breakLine() || message.text === "") return;
    this.#options.io.stdout(sanitizeForTerminal(`assistant: ${message.text}\n`));
  }

  /**
   * Ends the line of an answer that was streaming in, so what follows (a
   * failure, the interrupt message) starts on its own line.
   *
   * @returns whether an answer was streaming
   */
  breakLine(): boolean {
    if (!this.#streaming) return false;
    this.#streaming = false;
    if (!this.#atLineStart) this.#options.io.stdout("\n");
    this.#atLineStart = true;
    return true;
  }

  toolCallStarted(call: ToolCall): void {
    if (this.#options.quiet) return;
    let args = JSON.stringify(call.arguments);
    if (args.length > MAX_ARGUMENTS_SHOWN) args = `${args.slice(0, MAX_ARGUMENTS_SHOWN - 1)}…`;
    this.#options.io.stdout(terminalLines([`▸ ${call.name} ${args}  (${call.id})`]));
  }

  toolCallResult(call: ToolCall, response: ToolCallResponse): void {
    if (this.#options.quiet) return;
    const { inlineResults, resultsFileLink } = this.#options.styleFor(call.name);
    const content = response.content;
    const limit = inlineResults === "off" ? 0 : inlineResults === "full" ? Infinity : inlineResults;
    // A result can be 100 MB: count its lines and take the first few without
    // splitting (and so copying) the whole text.
    const { count, shown } = headLines(content, limit);
    const size = ByteSize.fromBytes(utf8Length(content)).human();
    const what = response.isError ? "error" : "result";
    const bar = response.isError ? "  ✗ " : "  │ ";
    let text = terminalLines([
      `◂ ${call.name} (${call.id}) ${what}: ${plural(count, "line")}, ${size}`,
      ...shown.map((line) => bar + line),
    ]);
    if (shown.length < count && resultsFileLink !== "off") {
      const file = this.#writeResult(call, content);
      if (file !== undefined) {
        const more = shown.length === 0 ? "" : `${plural(count - shown.length, "more line")}: `;
        text += `  … ${more}full result in ${this.#link(file, resultsFileLink)}\n`;
      }
    }
    this.#options.io.stdout(text);
  }

  notice(fact: NoticeFact): void {
    this.#options.io.stderr(terminalLines([formatNotice(fact)]));
  }

  #writeResult(call: ToolCall, content: string): string | undefined {
    const path = join(this.#options.resultsDir, `${call.id.replace(/[^A-Za-z0-9._-]/g, "_")}.txt`);
    try {
      if (!this.#madeResultsDir) {
        Deno.mkdirSync(this.#options.resultsDir, { recursive: true });
        this.#madeResultsDir = true;
      }
      writeTextInChunks(path, content);
      return path;
    } catch (error) {
      getLogger(["spillway", "host"]).warn("could not write the full result of {id}: {error}", {
        id: call.id,
        error: String(error),
      });
      return undefined;
    }
  }

  /** The only escape sequence the reporter writes itself: the path is percent-encoded. */
  #link(path: string, style: ResultsFileLink): string {
    const shown = sanitizeForTerminal(relative(this.#cwd, path) || path, { singleLine: true });
    if (style === "osc8" && this.#options.io.isTerminal) {
      return `\x1b]8;;file://${encodeURI(path)}\x1b\\${shown}\x1b]8;;\x1b\\`;
    }
    return style === "full" ? sanitizeForTerminal(path, { singleLine: true }) : shown;
  }
}

/**
 * The reporter's one way to print what it composed: each line made safe for
 * the terminal on its own (so a name or id cannot break its line), newlines
 * added.
 */
function terminalLines(lines: readonly string[]): string {
  let text = "";
  for (const line of lines) text += sanitizeForTerminal(line, { singleLine: true }) + "\n";
  return text;
}

/** The number of lines of `text` (a final newline ends a line), and the first `limit` of them. */
export function headLines(text: string, limit: number): { count: number; shown: string[] } {
  const shown: string[] = [];
  let count = 0;
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf("\n", start);
    const stop = end === -1 ? text.length : end;
    if (count < limit) shown.push(text.slice(start, stop));
    count++;
    start = stop + 1;
  }
  return { count, shown };
}

/** Chunk size for writing full results: the whole text is never encoded at once. */
const WRITE_CHUNK_BYTES = 1024 * 1024;

/** Writes `text` as UTF-8 through one reused buffer. */
export function writeTextInChunks(path: string, text: string): void {
  const file = Deno.openSync(path, { write: true, create: true, truncate: true });
  try {
    const encoder = new TextEncoder();
    const buffer = new Uint8Array(WRITE_CHUNK_BYTES);
    // A UTF-16 unit takes at most 3 UTF-8 bytes, so a third of the buffer always fits.
    const units = Math.floor(WRITE_CHUNK_BYTES / 3);
    for (let offset = 0; offset < text.length;) {
      let end = Math.min(text.length, offset + units);
      const last = text.charCodeAt(end - 1);
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--; // keep a pair together
      const { written } = encoder.encodeInto(text.slice(offset, end), buffer);
      let bytes = buffer.subarray(0, written);
      while (bytes.length > 0) bytes = bytes.subarray(file.writeSync(bytes));
      offset = end;
    }
  } finally {
    file.close();
  }
}
