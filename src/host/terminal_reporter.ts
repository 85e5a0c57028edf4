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

  constructor(options: TerminalReporterOptions) {
    this.#options = options;
    this.#cwd = options.cwd ?? Deno.cwd();
  }

  assistant(message: AssistantMessage): void {
    if (this.#options.quiet || message.text === "") return;
    this.#options.io.stdout(`assistant: ${sanitizeForTerminal(message.text)}\n`);
  }

  toolCallStarted(call: ToolCall): void {
    if (this.#options.quiet) return;
    let args = JSON.stringify(call.arguments);
    if (args.length > MAX_ARGUMENTS_SHOWN) args = `${args.slice(0, MAX_ARGUMENTS_SHOWN - 1)}…`;
    this.#options.io.stdout(`▸ ${call.name} ${sanitizeForTerminal(args)}  (${call.id})\n`);
  }

  toolCallResult(call: ToolCall, response: ToolCallResponse): void {
    if (this.#options.quiet) return;
    const { inlineResults, resultsFileLink } = this.#options.styleFor(call.name);
    const lines = response.content.split("\n");
    if (lines.at(-1) === "") lines.pop();
    const size = ByteSize.fromBytes(utf8Length(response.content)).human();
    const what = response.isError ? "error" : "result";
    let text = `◂ ${call.name} (${call.id}) ${what}: ${plural(lines.length, "line")}, ${size}\n`;
    const shown = Math.min(
      lines.length,
      inlineResults === "off" ? 0 : inlineResults === "full" ? lines.length : inlineResults,
    );
    const bar = response.isError ? "  ✗ " : "  │ ";
    for (const line of lines.slice(0, shown)) text += bar + sanitizeForTerminal(line) + "\n";
    if (shown < lines.length && resultsFileLink !== "off") {
      const file = this.#writeResult(call, response);
      if (file !== undefined) {
        const more = shown === 0 ? "" : `${plural(lines.length - shown, "more line")}: `;
        text += `  … ${more}full result in ${this.#link(file, resultsFileLink)}\n`;
      }
    }
    this.#options.io.stdout(text);
  }

  notice(fact: NoticeFact): void {
    this.#options.io.stderr(`${formatNotice(fact)}\n`);
  }

  #writeResult(call: ToolCall, response: ToolCallResponse): string | undefined {
    const path = join(this.#options.resultsDir, `${call.id.replace(/[^A-Za-z0-9._-]/g, "_")}.txt`);
    try {
      if (!this.#madeResultsDir) {
        Deno.mkdirSync(this.#options.resultsDir, { recursive: true });
        this.#madeResultsDir = true;
      }
      Deno.writeTextFileSync(path, response.content);
      return path;
    } catch (error) {
      getLogger(["spillway", "host"]).warn("could not write the full result of {id}: {error}", {
        id: call.id,
        error: String(error),
      });
      return undefined;
    }
  }

  #link(path: string, style: ResultsFileLink): string {
    const shown = relative(this.#cwd, path) || path;
    if (style === "osc8" && this.#options.io.isTerminal) {
      return `\x1b]8;;file://${encodeURI(path)}\x1b\\${shown}\x1b]8;;\x1b\\`;
    }
    return style === "full" ? path : shown;
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
