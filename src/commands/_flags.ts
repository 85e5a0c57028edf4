/**
 * How a command declares its flags and reads them back. The declarations
 * are data (one {@linkcode FlagSpec} per flag) so the command line can be
 * built, documented and completed from them; the parsing itself is done by
 * `commander` in `_program.ts`. A command reads what was given through
 * {@linkcode ParsedFlags}.
 *
 * @module
 */

/** One flag a command accepts. */
export interface FlagSpec {
  /** The long name without dashes, e.g. `"config"` for `--config`. */
  readonly name: string;
  /** A one-letter alias without the dash, e.g. `"v"` for `-v`. */
  readonly short?: string;
  /**
   * `"boolean"`: present or not; `"count"`: how many times given (`-vv`);
   * `"string"`: takes a value.
   */
  readonly kind: "boolean" | "count" | "string";
  /** For `"string"` flags: may be given several times, values kept in order. Defaults to `false`. */
  readonly repeatable?: boolean;
  /** For `"string"` flags: the only values accepted. Default: any value. */
  readonly choices?: readonly string[];
  /** The value's placeholder in help, e.g. `"FILE"`. Defaults to `"VALUE"`. */
  readonly valueName?: string;
  /** One line of help. */
  readonly help: string;
}

/** What the command line gave a command. */
export interface ParsedFlags {
  /** Arguments that are not flags, in order (everything after `--` included). */
  readonly positionals: readonly string[];
  /** The value of a string flag (the only one, as it is not repeatable), if given. */
  string(name: string): string | undefined;
  /** All values of a repeatable string flag, in order. */
  strings(name: string): readonly string[];
  /** Whether a boolean or count flag was given. */
  boolean(name: string): boolean;
  /** How many times a count flag was given. */
  count(name: string): number;
}

/** `--help`/`-h`, which every command accepts (the command line adds it). */
export const HELP_FLAG: FlagSpec = {
  name: "help",
  short: "h",
  kind: "boolean",
  help: "show this help and exit",
};

/**
 * How a flag is spelled in usage lines: `--config FILE`, `-v, --verbose`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { flagSynopsis } from "./_flags.ts";
 * assert.equal(flagSynopsis({ name: "config", kind: "string", valueName: "FILE", help: "" }), "--config FILE");
 * ```
 */
export function flagSynopsis(spec: FlagSpec): string {
  const long = spec.kind === "string" ? `--${spec.name} ${placeholder(spec)}` : `--${spec.name}`;
  return spec.short === undefined ? long : `-${spec.short}, ${long}`;
}

/** The value's placeholder in help and errors: `FILE`, or `VALUE` when unnamed. */
export function placeholder(spec: FlagSpec): string {
  return spec.valueName ?? "VALUE";
}
