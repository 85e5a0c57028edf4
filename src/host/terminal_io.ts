/**
 * The terminal as the host writes to it: two line writers and whether a
 * person is looking. Commands get one injected, so tests capture output.
 *
 * @module
 */

/** Where the host writes. */
export interface TerminalIo {
  /** Writes to standard output (text is written as is, add your own newline). */
  out(text: string): void;
  /** Writes to standard error. */
  err(text: string): void;
  /** Whether stdout is an interactive terminal (colors, OSC 8 links). */
  readonly isTerminal: boolean;
}

const encoder = new TextEncoder();

/** The process's own stdout and stderr. */
export function denoTerminalIo(): TerminalIo {
  return {
    out: (text) => writeAll(Deno.stdout, text),
    err: (text) => writeAll(Deno.stderr, text),
    isTerminal: Deno.stdout.isTerminal(),
  };
}

function writeAll(stream: { writeSync(p: Uint8Array): number }, text: string): void {
  let bytes = encoder.encode(text);
  while (bytes.length > 0) bytes = bytes.subarray(stream.writeSync(bytes));
}

/** Captures output in memory, for tests. */
export class CapturedTerminalIo implements TerminalIo {
  stdout = "";
  stderr = "";
  readonly isTerminal: boolean;

  constructor(isTerminal = false) {
    this.isTerminal = isTerminal;
  }

  out(text: string): void {
    this.stdout += text;
  }

  err(text: string): void {
    this.stderr += text;
  }
}
