/**
 * The shape every `spillway` command has, so `src/cli.ts` can list them,
 * print their help and dispatch to them from one registry. A command lives
 * in `src/commands/<name>.ts` and exports one object of this type.
 *
 * @module
 */

import type { CommandIo } from "./command_io.ts";
import type { FlagSpec } from "./_flags.ts";

/** One `spillway` command. */
export interface Command {
  /** The words that select it, e.g. `"config check"`. */
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The synopsis, e.g. `"spillway config check [--workspace DIR] …"`. */
  readonly usage: string;
  /** Paragraphs shown by `--help` between the usage and the flags. */
  readonly description: string;
  /** The flags it accepts (for `--help`; the command parses its own args). */
  readonly flags: readonly FlagSpec[];
  /**
   * Runs the command with the arguments after its name.
   *
   * @returns the exit code: 0 success, 1 failure, 2 usage error
   * @throws {SpillwayError} `usage` for bad arguments (the CLI prints it and exits 2)
   */
  run(args: readonly string[], io: CommandIo): Promise<number>;
}
