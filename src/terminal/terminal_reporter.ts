/**
 * The terminal side of a turn: the assistant's words, each call as it
 * starts, the first (or, as its tool's truncation keeps them, last) lines
 * of each raw result (bounded in lines and bytes, with a link to the full
 * result file), and the notices. Notices go to
 * stderr and are shown under `--quiet` too: they are the only sign that the
 * assistant got less than the terminal showed, so a cut response's raw text
 * is always saved and its file linked with its notice.
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import type { InlineResults, ResultsFileLink } from "../config/tool_vocabulary.ts";
import type { NoticeSink } from "../machines/turn_dependencies.ts";
import type { TurnObserver } from "../machines/turn_observer.ts";
import type { AssistantMessage } from "../provider/provider.ts";
import { formatNotice, type NoticeFact } from "../review/notice.ts";
import type { ToolCall } from "../review/tool_call.ts";
import { responseBytes, type ToolCallResponse } from "../review/tool_call_response.ts";
import { ByteSize } from "../size/byte_size.ts";
import { utf8Length } from "../size/cap_text.ts";
import { HEAD_TRUNCATION, type Truncation } from "../size/truncation.ts";
import { FullResultFiles } from "./full_result_files.ts";
import { previewLines } from "./preview_lines.ts";
import { plural } from "./plural.ts";
import { sanitizeForTerminal } from "./sanitize.ts";
import { shownPath } from "./shown_path.ts";
import type { TerminalIo } from "./terminal_io.ts";
import { boundLine, DISPLAY_LINE_BYTES } from "./terminal_line.ts";
import type { TerminalSpinner } from "./terminal_spinner.ts";

/** How a tool's results are shown (from its `style.*` config). */
export interface ResultStyle {
  readonly inlineResults: InlineResults;
  readonly resultsFileLink: ResultsFileLink;
  /**
   * The tool's `truncation`: the preview shows the end(s) a cut keeps.
   * Default: the head.
   */
  readonly truncation?: Truncation;
}

/** Options of {@linkcode TerminalReporter}. */
export interface TerminalReporterOptions {
  readonly io: TerminalIo;
  /** Each tool's display style. */
  readonly styleFor: (tool: string) => ResultStyle;
  /** Where full results are written (created on first use, mode 0700; files 0600). */
  readonly resultsDir: string;
  /** Only notices (and errors) are shown. Default false. */
  readonly quiet?: boolean;
  /** Paths are shown relative to this directory. Default: the current directory. */
  readonly cwd?: string;
  /** Shown while calls run; told when each starts and ends. Default: none. */
  readonly spinner?: TerminalSpinner;
}

/** Longest argument summary shown on a call line. */
const MAX_ARGUMENTS_SHOWN = 120;
/**
 * The most one result's preview prints, in UTF-8 bytes, whatever
 * `inline_results` says (except `"full"`): a few screens, not 100 MB.
 */
export const PREVIEW_BYTES = 4096;

/** Renders a turn on the terminal. */
export class TerminalReporter implements TurnObserver, NoticeSink {
  readonly #options: TerminalReporterOptions;
  readonly #cwd: string;
  readonly #files: FullResultFiles;
  /**
   * Raw results of the batch in flight, by call id: a cap's notice comes
   * after the result, and its full text must be saved then. Cleared when the
   * model answers again (every notice of the batch has come by then).
   */
  #batch = new Map<string, ToolCallResponse>();
  /** Calls whose full-result file has been linked on the terminal. */
  readonly #linked = new Set<string>();
  /** An answer is streaming in: its line is open. */
  #streaming = false;
  /** The last piece written ended a line. */
  #atLineStart = true;

  constructor(options: TerminalReporterOptions) {
    this.#options = options;
    this.#cwd = options.cwd ?? Deno.cwd();
    this.#files = new FullResultFiles(options.resultsDir);
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
    this.#batch = new Map();
    if (this.#options.quiet) return;
    if (this.breakLine() || message.text === "") return;
    this.#options.io.stdout(
      sanitizeForTerminal(`assistant: ${message.text}`).split("\n").map((line) => boundLine(line))
        .join("\n") + "\n",
    );
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
    this.#options.spinner?.started(call);
    if (this.#options.quiet) return;
    let args = JSON.stringify(call.arguments);
    if (args.length > MAX_ARGUMENTS_SHOWN) args = `${args.slice(0, MAX_ARGUMENTS_SHOWN - 1)}…`;
    this.#options.io.stdout(terminalLines([`▸ ${call.name} ${args}  (${call.id})`]));
  }

  toolCallResult(call: ToolCall, response: ToolCallResponse): void {
    this.#options.spinner?.finished(call.id);
    this.#batch.set(call.id, response);
    if (this.#options.quiet) return;
    const style = this.#options.styleFor(call.name);
    const { inlineResults, resultsFileLink } = style;
    const content = response.content;
    const full = inlineResults === "full";
    const limit = inlineResults === "off" ? 0 : full ? Infinity : inlineResults;
    // The end(s) the tool's truncation keeps. One too large to hold has its
    // head here, and its tail, line count and size in its window.
    const picked = previewLines(response, limit, style.truncation ?? HEAD_TRUNCATION);
    const { count } = picked;
    const size = ByteSize.fromBytes(responseBytes(response)).human();
    const what = response.isError ? "error" : "result";
    const bar = response.isError ? "  ✗ " : "  │ ";
    // Held only in part, a text whose last held line runs on to its end (no
    // newline after it) has that line's remaining bytes outside `content`.
    const window = response.window;
    const beyond = window !== undefined && window.lines === picked.head.length &&
        picked.tail.length === 0 && !content.endsWith("\n")
      ? window.bytes - utf8Length(content)
      : 0;
    // The byte budget is shared between the ends as their lines are.
    const shownLines = picked.head.length + picked.tail.length;
    const headBudget = Math.floor(PREVIEW_BYTES * picked.head.length / Math.max(1, shownLines));
    const head = full
      ? { lines: [...picked.head], cut: false }
      : boundPreview(picked.head, { budget: headBudget, lastLineBeyond: beyond });
    const tail = full
      ? { lines: [...picked.tail], cut: false }
      : boundPreview(picked.tail, { budget: PREVIEW_BYTES - headBudget, fromEnd: true });
    const shown = head.lines.length + tail.lines.length;
    const hidden = count - shown;
    // Where lines are left out, one line says how many (and links the full
    // result): before the tail, or at the end when only lines were cut short.
    let gap = "";
    if (hidden > 0 && shown > 0) {
      gap = plural(hidden, head.lines.length === 0 ? "earlier line" : "more line");
    }
    if ((hidden > 0 || head.cut || tail.cut) && resultsFileLink !== "off") {
      const file = this.#save(call.id, response);
      if (file !== undefined) {
        const where = `full result in ${this.#link(file, resultsFileLink)}`;
        gap = gap === "" ? where : `${gap}: ${where}`;
        this.#linked.add(call.id);
      }
    }
    const lines = (list: readonly string[]) => terminalLines(list.map((line) => bar + line));
    const gapLine = gap === "" ? "" : `  … ${gap}\n`;
    this.#options.io.stdout(
      terminalLines([`◂ ${call.name} (${call.id}) ${what}: ${plural(count, "line")}, ${size}`]) +
        lines(head.lines) +
        (hidden > 0 ? gapLine + lines(tail.lines) : lines(tail.lines) + gapLine),
    );
  }

  notice(fact: NoticeFact): void {
    let text = terminalLines([formatNotice(fact)]);
    // A cut response always has its raw text saved and linked, under --quiet
    // too, whatever the preview showed.
    const response = this.#batch.get(fact.callId);
    if (!this.#linked.has(fact.callId) && response !== undefined) {
      const file = this.#save(fact.callId, response);
      if (file !== undefined) {
        const style = this.#options.styleFor(fact.tool).resultsFileLink;
        text += `  full result: ${this.#link(file, style === "off" ? "osc8" : style)}\n`;
        this.#linked.add(fact.callId);
      }
    }
    this.#options.io.stderr(text);
  }

  #save(callId: string, response: ToolCallResponse): string | undefined {
    const { window } = response;
    try {
      // An output too large to hold is on disk already: keep that file.
      if (window !== undefined) {
        return this.#files.keep(callId, { path: window.path, move: window.temporary });
      }
      return this.#files.save(callId, response.content);
    } catch (error) {
      getLogger(["spillway", "host"]).warn("could not write the full result of {id}: {error}", {
        id: callId,
        error: String(error),
      });
      return undefined;
    }
  }

  /** The only escape sequence the reporter writes itself: the path is percent-encoded. */
  #link(path: string, style: ResultsFileLink): string {
    const shown = sanitizeForTerminal(shownPath(this.#cwd, path), { singleLine: true });
    if (style === "osc8" && this.#options.io.isTerminal) {
      return `\x1b]8;;file://${encodeURI(path)}\x1b\\${shown}\x1b]8;;\x1b\\`;
    }
    return style === "full" ? sanitizeForTerminal(path, { singleLine: true }) : shown;
  }
}

/**
 * Preview lines within `budget` bytes: each line bounded in bytes (`… N more
 * bytes`), and no more lines once the budget is spent, counting from the
 * first line, or `fromEnd` from the last (whose lines are then kept).
 */
function boundPreview(
  lines: readonly string[],
  options: { budget: number; fromEnd?: boolean; lastLineBeyond?: number },
): { lines: string[]; cut: boolean } {
  const kept: string[] = [];
  let budget = options.budget;
  let cut = false;
  const order = options.fromEnd ? [...lines.keys()].reverse() : lines.keys();
  for (const index of order) {
    if (budget <= 0) break;
    const line = lines[index] as string;
    const beyond = index === lines.length - 1 ? options.lastLineBeyond ?? 0 : 0;
    const shown = boundLine(line, Math.min(DISPLAY_LINE_BYTES, budget), beyond);
    cut ||= shown !== line;
    kept.push(shown);
    budget -= Math.min(utf8Length(line), DISPLAY_LINE_BYTES);
  }
  return { lines: options.fromEnd ? kept.reverse() : kept, cut };
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
