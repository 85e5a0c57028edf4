/**
 * What a command talks to: output streams, environment and working
 * directory. Commands get it injected so tests run them in-process and read
 * what they printed; `denoCommandIo()` is the real terminal.
 *
 * @module
 */

/** The world a command runs in. */
export interface CommandIo extends TerminalIo {
  /** The environment (`HOME`, `XDG_CONFIG_HOME`, …). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The directory relative paths are resolved against. */
  readonly cwd: string;
  /** The clock (compaction times, file ages). Default: the system clock. */
  readonly now?: () => Date;
}

import type { TerminalIo } from "../terminal/terminal_io.ts";

const encoder = new TextEncoder();

/**
 * The process's own streams, environment and working directory.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { denoCommandIo } from "./command_io.ts";
 * assert.equal(denoCommandIo().cwd, Deno.cwd());
 * ```
 */
export function denoCommandIo(): CommandIo {
  return {
    stdout: (text) => writeAll(Deno.stdout, text),
    stderr: (text) => writeAll(Deno.stderr, text),
    env: Deno.env.toObject(),
    cwd: Deno.cwd(),
    isTerminal: Deno.stdout.isTerminal(),
  };
}

function writeAll(stream: { writeSync(bytes: Uint8Array): number }, text: string): void {
  // writeSync may write fewer bytes than asked: loop until all are out.
  let bytes = encoder.encode(text);
  while (bytes.length > 0) bytes = bytes.subarray(stream.writeSync(bytes));
}

/** An in-memory {@linkcode CommandIo} for tests: read back what was written. */
export interface CapturedIo extends CommandIo {
  /** Everything written to stdout so far. */
  readonly out: () => string;
  /** Everything written to stderr so far. */
  readonly err: () => string;
}

/**
 * A {@linkcode CommandIo} that records output in memory.
 *
 * @param options `env` defaults to `{}` (no user config file); `cwd` to `Deno.cwd()`;
 *   `now` to the system clock
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { captureCommandIo } from "./command_io.ts";
 * const io = captureCommandIo();
 * io.stdout("hello\n");
 * assert.equal(io.out(), "hello\n");
 * ```
 */
export function captureCommandIo(
  options: {
    env?: Readonly<Record<string, string | undefined>>;
    cwd?: string;
    now?: () => Date;
  } = {},
): CapturedIo {
  let out = "";
  let err = "";
  return {
    stdout: (text) => {
      out += text;
    },
    stderr: (text) => {
      err += text;
    },
    env: options.env ?? {},
    cwd: options.cwd ?? Deno.cwd(),
    ...(options.now === undefined ? {} : { now: options.now }),
    out: () => out,
    err: () => err,
  };
}
