/**
 * The shape every `spillway` command has, so `src/cli.ts` can list them,
 * build the command line, print their help and dispatch to them from one
 * registry. A command lives in `src/commands/<name>.ts` and exports one
 * object of this type; adding a flag is adding a {@linkcode FlagSpec} to its
 * `flags` and reading it from the {@linkcode ParsedFlags} `run` receives.
 *
 * @module
 */

import type { CommandIo } from "./command_io.ts";
import type { FlagSpec, ParsedFlags } from "./_flags.ts";

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
  /** The flags it accepts (`--help` is added for every command). */
  readonly flags: readonly FlagSpec[];
  /**
   * The arguments that are not flags, in commander's notation: `"<ID>"` (one,
   * required), `"[ID...]"` (any number), `"[prompt...]"`. Default: none, so
   * a stray argument is a usage error.
   */
  readonly positionals?: string;
  /**
   * Runs the command with what the command line gave it.
   *
   * @returns the exit code: 0 success, 1 failure, 2 usage error
   * @throws {SpillwayError} `usage` for bad arguments (the CLI prints it and exits 2)
   */
  run(flags: ParsedFlags, io: CommandIo): Promise<number>;
}
