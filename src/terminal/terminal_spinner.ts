/**
 * The sign of life while a tool runs: once a call has run for about a
 * second, one line on stderr with a spinner, the tool's name and the time
 * it has been running, redrawn in place and erased when the result arrives.
 * Only for a person at a terminal: the command line creates it when stderr
 * is a TTY and `--quiet` is off, and without colour under `NO_COLOR`.
 *
 * Other output must not land in the middle of the line: everything the
 * turn prints goes through {@linkcode TerminalSpinner.wrap}, which erases
 * the line first (the next frame draws it again). A prompt pauses the
 * spinner, and output of other calls is held while it is open (then
 * printed in order), so a question is never buried under a result. The
 * holding works with drawing off too (`--quiet`, stderr not a terminal).
 *
 * @module
 */

import type { ToolCall } from "../review/tool_call.ts";
import { sanitizeForTerminal } from "./sanitize.ts";
import type { TerminalIo } from "./terminal_io.ts";

/** A call shows the spinner once it has run this long. */
export const SPINNER_DELAY_MS = 1000;
/** Time between frames. */
export const SPINNER_FRAME_MS = 100;

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/** Back to the start of the line and erase it. */
const ERASE_LINE = "\r\x1b[2K";

/** Options of {@linkcode TerminalSpinner}. */
export interface TerminalSpinnerOptions {
  /** Writes to the terminal's stderr. */
  readonly write: (text: string) => void;
  /** Colour the spinner. Default `true`; pass `false` under `NO_COLOR`. */
  readonly colour?: boolean;
  /** Milliseconds since some fixed point. Default `performance.now`. */
  readonly now?: () => number;
  /** Runs `frame` every `ms` until the returned function is called. Default `setInterval`. */
  readonly every?: (frame: () => void, ms: number) => () => void;
  /** Draw the spinner at all. Default `true`; `false` keeps only the holding of output. */
  readonly draw?: boolean;
}

/** Draws, redraws and erases the running-tool line. */
export class TerminalSpinner {
  readonly #write: (text: string) => void;
  readonly #colour: boolean;
  readonly #now: () => number;
  readonly #every: (frame: () => void, ms: number) => () => void;
  readonly #draw: boolean;
  /** Writes held while a prompt is open, in order. */
  #held: (() => void)[] = [];
  /** Running calls, oldest first: name and start time. */
  readonly #running = new Map<string, { name: string; since: number }>();
  #stopTimer: (() => void) | undefined;
  #drawn = false;
  #paused = 0;
  #frame = 0;

  constructor(options: TerminalSpinnerOptions) {
    this.#write = options.write;
    this.#colour = options.colour ?? true;
    this.#now = options.now ?? (() => performance.now());
    this.#draw = options.draw ?? true;
    this.#every = options.every ?? ((frame, ms) => {
      const id = setInterval(frame, ms);
      return () => clearInterval(id);
    });
  }

  /** A call started running. */
  started(call: ToolCall): void {
    if (!this.#draw) return;
    this.#running.set(call.id, { name: call.name, since: this.#now() });
    this.#stopTimer ??= this.#every(() => this.render(), SPINNER_FRAME_MS);
  }

  /** A call's result arrived: its line goes; with no call left, the timer stops. */
  finished(callId: string): void {
    if (!this.#running.delete(callId)) return;
    this.erase();
    if (this.#running.size === 0) this.#stopTimerNow();
  }

  /** Draws the current frame, if a call has run long enough and no prompt is open. */
  render(): void {
    if (this.#paused > 0) return;
    const now = this.#now();
    const [first] = this.#running.values();
    if (first === undefined || now - first.since < SPINNER_DELAY_MS) return;
    const glyph = FRAMES[this.#frame++ % FRAMES.length] ?? "";
    const seconds = ((now - first.since) / 1000).toFixed(1);
    const others = this.#running.size > 1 ? ` (+${this.#running.size - 1} more)` : "";
    const name = sanitizeForTerminal(first.name, { singleLine: true });
    const spin = this.#colour ? `\x1b[36m${glyph}\x1b[0m` : glyph;
    this.#write(`${ERASE_LINE}${spin} ${name} running, ${seconds} s${others}`);
    this.#drawn = true;
  }

  /** Erases the line if it is drawn (before other output; the next frame redraws it). */
  erase(): void {
    if (!this.#drawn) return;
    this.#write(ERASE_LINE);
    this.#drawn = false;
  }

  /**
   * Erases the line, keeps it away and holds wrapped output until the
   * returned function is called (a prompt is open); then prints what was held.
   */
  pause(): () => void {
    this.erase();
    this.#paused++;
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      this.#paused--;
      if (this.#paused > 0) return;
      const held = this.#held;
      this.#held = [];
      for (const write of held) write();
    };
  }

  /** Erases the line, stops the timer and prints anything held. Idempotent. */
  stop(): void {
    this.erase();
    const held = this.#held;
    this.#held = [];
    this.#paused = 0;
    for (const write of held) write();
    this.#running.clear();
    this.#stopTimerNow();
  }

  /** `io` with every write erasing the spinner line first, and held while a prompt is open. */
  wrap<T extends TerminalIo>(io: T): T {
    const through = (write: (text: string) => void) => (text: string) => {
      if (this.#paused > 0) {
        this.#held.push(() => write(text));
        return;
      }
      this.erase();
      write(text);
    };
    return { ...io, stdout: through(io.stdout), stderr: through(io.stderr) };
  }

  #stopTimerNow(): void {
    this.#stopTimer?.();
    this.#stopTimer = undefined;
  }
}
