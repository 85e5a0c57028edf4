/**
 * A small command-line flag parser for spillway's commands: `--flag value`
 * and `--flag=value`, repeatable flags (`--config A --config B`), counted
 * short flags (`-v`, `-vv`), and `--` to end flags. Anything it does not
 * know is a usage error that names the flag, so a typo never silently
 * changes what a command does.
 *
 * @module
 */

import { SpillwayError } from "../errors/spillway_error.ts";

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
  /** The value's placeholder in help, e.g. `"FILE"`. Defaults to `"VALUE"`. */
  readonly valueName?: string;
  /** One line of help. */
  readonly help: string;
}

/** The result of {@linkcode parseFlags}. */
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

/** `--help`/`-h`, which every command accepts. */
export const HELP_FLAG: FlagSpec = {
  name: "help",
  short: "h",
  kind: "boolean",
  help: "show this help and exit",
};

/**
 * Parses `args` against `specs`.
 *
 * @throws {SpillwayError} `usage` for an unknown flag, a missing or
 *   unexpected value, or a non-repeatable flag given twice
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseFlags } from "./_flags.ts";
 * const flags = parseFlags(["--config=a.toml", "--config", "b.toml", "-vv", "x"], [
 *   { name: "config", kind: "string", repeatable: true, help: "" },
 *   { name: "verbose", short: "v", kind: "count", help: "" },
 * ]);
 * assert.deepEqual(flags.strings("config"), ["a.toml", "b.toml"]);
 * assert.equal(flags.count("verbose"), 2);
 * assert.deepEqual(flags.positionals, ["x"]);
 * ```
 */
export function parseFlags(args: readonly string[], specs: readonly FlagSpec[]): ParsedFlags {
  const values = new Map<string, string[]>();
  const counts = new Map<string, number>();
  const positionals: string[] = [];
  const byLong = new Map(specs.map((spec) => [spec.name, spec]));
  const byShort = new Map(
    specs.flatMap((spec) => spec.short === undefined ? [] : [[spec.short, spec] as const]),
  );

  const give = (spec: FlagSpec, spelled: string, value: string | undefined) => {
    if (spec.kind !== "string") {
      if (value !== undefined) throw usage(`${spelled} takes no value`);
      const seen = counts.get(spec.name) ?? 0;
      if (seen > 0 && spec.kind === "boolean") throw usage(`${spelled} given twice`);
      counts.set(spec.name, seen + 1);
      return;
    }
    if (value === undefined) {
      throw usage(`${spelled} needs a value (${spelled} ${placeholder(spec)})`);
    }
    const list = values.get(spec.name) ?? [];
    if (list.length > 0 && spec.repeatable !== true) throw usage(`${spelled} given twice`);
    list.push(value);
    values.set(spec.name, list);
  };

  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      const spec = byLong.get(name);
      if (spec === undefined) throw usage(unknownFlag(`--${name}`, specs));
      let value = eq < 0 ? undefined : arg.slice(eq + 1);
      if (value === undefined && spec.kind === "string" && takesNext(args[i + 1])) {
        value = args[++i];
      }
      give(spec, `--${name}`, value);
    } else if (arg.startsWith("-") && arg.length > 1) {
      // -v, -vv, -h; a short string flag takes the next argument (-w DIR).
      for (const [j, letter] of [...arg.slice(1)].entries()) {
        const spec = byShort.get(letter);
        if (spec === undefined) throw usage(unknownFlag(`-${letter}`, specs));
        const last = j === arg.length - 2;
        const value = spec.kind === "string" && last && takesNext(args[i + 1])
          ? args[++i]
          : undefined;
        give(spec, `-${letter}`, value);
      }
    } else {
      positionals.push(arg);
    }
  }

  return {
    positionals,
    string: (name) => values.get(name)?.at(-1),
    strings: (name) => values.get(name) ?? [],
    boolean: (name) => (counts.get(name) ?? 0) > 0,
    count: (name) => counts.get(name) ?? 0,
  };
}

/** How a flag is spelled in usage lines: `--config FILE`, `-v, --verbose`. */
export function flagSynopsis(spec: FlagSpec): string {
  const long = spec.kind === "string" ? `--${spec.name} ${placeholder(spec)}` : `--${spec.name}`;
  return spec.short === undefined ? long : `-${spec.short}, ${long}`;
}

/** Whether `next` can be a flag's value: it exists and is not itself a flag. */
function takesNext(next: string | undefined): next is string {
  return next !== undefined && (next === "-" || !next.startsWith("-"));
}

function placeholder(spec: FlagSpec): string {
  return spec.valueName ?? "VALUE";
}

function usage(message: string): SpillwayError {
  return new SpillwayError("usage", message);
}

function unknownFlag(spelled: string, specs: readonly FlagSpec[]): string {
  const known = specs.map((spec) => `--${spec.name}`);
  const ranked = known
    .map((name) => ({ name, distance: editDistance(name, spelled) }))
    .sort((a, b) => a.distance - b.distance);
  const close = ranked[0] !== undefined && ranked[0].distance <= 2 ? ranked[0].name : undefined;
  return close === undefined
    ? `unknown flag ${spelled} (known: ${known.join(", ")})`
    : `unknown flag ${spelled} (did you mean ${close}?)`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(substitute, (previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
