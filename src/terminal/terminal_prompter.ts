/**
 * The terminal prompter: `result = "ask"` offers deliver / edit / skip on the
 * terminal, `result = "edit"` opens `$EDITOR` on the raw response. Prompts
 * are asked one at a time even when calls of a phase finish together.
 *
 * @module
 */

import { ByteSize } from "../size/byte_size.ts";
import { Buffer } from "node:buffer";
import type { Prompter, ResultDecision, RunDecision } from "../machines/prompter.ts";
import type { ToolCall } from "../review/tool_call.ts";
import { describeDropped, droppedContentOf } from "../review/dropped_content.ts";
import { responseBytes, type ToolCallResponse } from "../review/tool_call_response.ts";
import { fileNamePart } from "./file_name_part.ts";
import { sanitizeForTerminal } from "./sanitize.ts";
import type { TerminalIo } from "./terminal_io.ts";
import type { TerminalSpinner } from "./terminal_spinner.ts";
import { readFull } from "../files/read_full.ts";

/** Reads one line of the person's answer (without the newline); `null` at end of input. */
export type LineReader = (signal: AbortSignal) => Promise<string | null>;

/** Options of {@linkcode TerminalPrompter}. */
export interface TerminalPrompterOptions {
  /** Where prompts are written. */
  readonly io: TerminalIo;
  /** Reads answers; defaults to reading lines from standard input. */
  readonly readLine?: LineReader;
  /** The editor argv; defaults to `$VISUAL`, then `$EDITOR`, then `vi`. */
  readonly editor?: readonly string[];
  /** Where edit files are written; defaults to the system temp directory. */
  readonly tempDir?: string;
  /** The running-tool line, kept away while a prompt or the editor is open. Default: none. */
  readonly spinner?: TerminalSpinner;
}

/** Asks a person at the terminal. */
export class TerminalPrompter implements Prompter {
  readonly #io: TerminalIo;
  readonly #readLine: LineReader;
  readonly #editor: readonly string[];
  readonly #tempDir: string | undefined;
  readonly #spinner: TerminalSpinner | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: TerminalPrompterOptions) {
    this.#io = options.io;
    this.#readLine = options.readLine ?? stdinLineReader();
    this.#editor = options.editor ?? defaultEditor();
    this.#tempDir = options.tempDir;
    this.#spinner = options.spinner;
  }

  ask(call: ToolCall, response: ToolCallResponse, signal: AbortSignal): Promise<ResultDecision> {
    return this.#oneAtATime(async () => {
      const size = ByteSize.fromBytes(responseBytes(response)).human();
      for (;;) {
        this.#say(
          `${call.name} (${call.id}) returned ${size}${response.isError ? " (error)" : ""}. ` +
            `[d]eliver, [e]dit, [s]kip? `,
          "",
        );
        const answer = await this.#readLine(signal);
        if (answer === null) return { kind: "skip" };
        switch (answer.trim().toLowerCase()) {
          case "":
          case "d":
          case "deliver":
            return { kind: "deliver" };
          case "s":
          case "skip":
            return { kind: "skip" };
          case "e":
          case "edit":
            return await this.#openEditor(call, response, signal);
          default:
            this.#say("please answer d, e or s");
        }
      }
    });
  }

  edit(call: ToolCall, response: ToolCallResponse, signal: AbortSignal): Promise<ResultDecision> {
    return this.#oneAtATime(() => this.#openEditor(call, response, signal));
  }

  approveRun(call: ToolCall, mode: "ask" | "edit", signal: AbortSignal): Promise<RunDecision> {
    return this.#oneAtATime(async () => {
      const args = JSON.stringify(call.arguments);
      for (;;) {
        this.#say(
          `Run ${call.name} (${call.id}) with ${args}? [y]es, [e]dit arguments, [n]o? `,
          "",
        );
        const answer = mode === "edit" ? "e" : await this.#readLine(signal);
        if (answer === null) return { kind: "skip" };
        switch (answer.trim().toLowerCase()) {
          case "":
          case "y":
          case "yes":
            return { kind: "run" };
          case "n":
          case "no":
            return { kind: "skip" };
          case "e":
          case "edit": {
            if (mode === "edit") this.#say("opening the editor");
            const edited = await this.#editText(
              `${fileNamePart(call.name)}-arguments`,
              JSON.stringify(call.arguments, null, 2),
              signal,
            );
            if (edited === undefined) return { kind: "run" };
            try {
              const parsed: unknown = JSON.parse(edited);
              if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
                return { kind: "edit", arguments: parsed as Record<string, unknown> };
              }
              this.#say("the arguments must be a JSON object; not running the call");
            } catch (error) {
              this.#say(
                `the edited arguments are not JSON (${
                  (error as Error).message
                }); not running the call`,
              );
            }
            return { kind: "skip" };
          }
          default:
            this.#say("please answer y, e or n");
        }
      }
    });
  }

  async #openEditor(
    call: ToolCall,
    response: ToolCallResponse,
    signal: AbortSignal,
  ): Promise<ResultDecision> {
    const { window } = response;
    const name = fileNamePart(call.name);
    // An output too large to hold is edited from its file: the whole raw text.
    const edited = window === undefined
      ? await this.#editText(name, response.content, signal)
      : await this.#editText(name, { file: window.path }, signal);
    if (edited === undefined || edited === response.content) return { kind: "deliver" };
    // The edited text replaces the whole result: what was not text goes with it, said here.
    const dropped = droppedContentOf(response);
    if (dropped !== undefined) {
      this.#say(
        `${call.name} (${call.id}): the edited text replaces the result; dropped ${
          describeDropped(dropped)
        }`,
      );
    }
    return { kind: "edit", content: edited };
  }

  /**
   * Opens the editor on `text` (or on a copy of `text.file`) in a temp file
   * named after `name` (a {@linkcode fileNamePart}: tool names come from
   * outside); the edited text, or undefined when the editor failed or a
   * file came back unchanged.
   */
  async #editText(
    name: string,
    text: string | { readonly file: string },
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const path = await Deno.makeTempFile({
      ...(this.#tempDir === undefined ? {} : { dir: this.#tempDir }),
      prefix: `spillway-${name}-`,
      suffix: ".txt",
    });
    try {
      if (typeof text === "string") await Deno.writeTextFile(path, text);
      else await Deno.copyFile(text.file, path);
      const [program, ...args] = this.#editor;
      if (program === undefined) throw new TypeError("no editor configured");
      const status = await new Deno.Command(program, {
        args: [...args, path],
        stdin: "inherit",
        stdout: "inherit",
        stderr: "inherit",
        signal,
      }).output();
      if (!status.success) {
        this.#say(`${program} exited with code ${status.code}: keeping the text unedited`);
        return undefined;
      }
      if (typeof text !== "string" && await sameBytes(path, text.file)) return undefined;
      return await Deno.readTextFile(path);
    } finally {
      await Deno.remove(path).catch(() => {});
    }
  }

  /** Every line the prompter prints passes here: made safe for the terminal, kept on one line. */
  #say(line: string, end = "\n"): void {
    this.#io.stderr(sanitizeForTerminal(line, { singleLine: true }) + end);
  }

  #oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    const prompt = async () => {
      const resume = this.#spinner?.pause();
      try {
        return await work();
      } finally {
        resume?.();
      }
    };
    const next = this.#queue.then(prompt, prompt);
    this.#queue = next.catch(() => {});
    return next;
  }
}

/** Whether two files hold the same bytes, read a chunk at a time. */
async function sameBytes(a: string, b: string): Promise<boolean> {
  if ((await Deno.stat(a)).size !== (await Deno.stat(b)).size) return false;
  using left = await Deno.open(a, { read: true });
  using right = await Deno.open(b, { read: true });
  const chunk = 1 << 20;
  const x = new Uint8Array(chunk);
  const y = new Uint8Array(chunk);
  for (;;) {
    const [m, n] = [await readFull(left, x), await readFull(right, y)];
    if (m !== n) return false;
    if (m === 0) return true;
    if (Buffer.compare(x.subarray(0, m), y.subarray(0, n)) !== 0) return false;
  }
}

function defaultEditor(): string[] {
  const editor = Deno.env.get("VISUAL") ?? Deno.env.get("EDITOR") ?? "vi";
  // $EDITOR may carry flags ("code --wait"); split on spaces, no shell.
  return editor.split(/\s+/).filter((part) => part !== "");
}

/**
 * Reads lines from standard input, shared by every prompt of the process.
 * An aborted prompt (Ctrl-C) stops waiting at once; the read it left
 * pending is handed to the next prompt, so no input is lost or read twice.
 */
function stdinLineReader(): LineReader {
  const decoder = new TextDecoder();
  let buffered = "";
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  return async (signal) => {
    reader ??= Deno.stdin.readable.getReader();
    for (;;) {
      const newline = buffered.indexOf("\n");
      if (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        return line;
      }
      signal.throwIfAborted();
      pending ??= reader.read();
      const { value, done } = await untilAborted(pending, signal);
      pending = undefined;
      if (done) {
        const rest = buffered;
        buffered = "";
        return rest === "" ? null : rest;
      }
      buffered += decoder.decode(value, { stream: true });
    }
  };
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
