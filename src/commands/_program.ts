/**
 * The command line as a `commander` program, built from the command
 * registry: one commander command per spillway command (`config check`
 * becomes `check` under a `config` group), one option per
 * {@linkcode FlagSpec}. commander does the parsing (long and short flags,
 * `--flag=value`, `-vv`, `--`, unknown flags and commands with suggestions,
 * missing values and arguments); the help pages stay ours (`_help.ts`), and
 * every parse error comes out as a `usage` {@linkcode SpillwayError} naming
 * the command it belongs to, so the CLI prints it and exits 2.
 *
 * @module
 */

import { Command as Commander, CommanderError, Option } from "commander";
import { SpillwayError } from "../errors/spillway_error.ts";
import type { Command } from "./command.ts";
import type { CommandIo } from "./command_io.ts";
import { type FlagSpec, type ParsedFlags, placeholder } from "./_flags.ts";
import { formatCommandHelp, formatCommandList } from "./_help.ts";

/** What {@linkcode runProgram} ended with. */
export type ProgramOutcome =
  /** A command ran and returned its exit code. */
  | { readonly kind: "ran"; readonly command: Command; readonly code: number }
  /** A help page was printed: on request (`--help`), or for a group given no subcommand. */
  | { readonly kind: "help"; readonly requested: boolean };

/**
 * Parses `args` against `commands` and runs the command they select,
 * telling `onStart` which one first (errors it throws belong to it).
 *
 * @throws {SpillwayError} `usage` for a bad command line (its details carry
 *   `command`, the words of the command it belongs to, `""` for the root);
 *   whatever the command's own `run` throws
 */
export async function runProgram(
  args: readonly string[],
  io: CommandIo,
  commands: readonly Command[],
  onStart: (command: Command) => void = () => {},
): Promise<ProgramOutcome> {
  let ran: ProgramOutcome | undefined;
  const program = buildProgram(commands, io, async (command, flags) => {
    onStart(command);
    ran = { kind: "ran", command, code: await command.run(flags, io) };
  });
  try {
    await program.parseAsync([...args], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError && error.code === "commander.helpDisplayed") {
      return { kind: "help", requested: true };
    }
    if (error instanceof CommanderError && error.code === "commander.help") {
      return { kind: "help", requested: false };
    }
    throw error;
  }
  if (ran === undefined) throw new TypeError(`no command ran for ${JSON.stringify(args)}`);
  return ran;
}

type Runner = (command: Command, flags: ParsedFlags) => Promise<void>;

function buildProgram(commands: readonly Command[], io: CommandIo, runner: Runner): Commander {
  const root = configure(new Commander("spillway"), "", io, () => formatCommandList(commands));
  const groups = new Map<string, Commander>([["", root]]);
  const groupFor = (words: readonly string[]): Commander => {
    const path = words.join(" ");
    const known = groups.get(path);
    if (known !== undefined) return known;
    const parent = groupFor(words.slice(0, -1));
    const members = commands.filter((command) => command.name.startsWith(`${path} `));
    const group = configure(
      parent.command(words.at(-1) ?? ""),
      path,
      io,
      () => formatCommandList(members, path),
    );
    groups.set(path, group);
    return group;
  };
  for (const command of commands) {
    const words = command.name.split(" ");
    const leaf = configure(
      groupFor(words.slice(0, -1)).command(words.at(-1) ?? ""),
      command.name,
      io,
      () => formatCommandHelp(command),
    );
    // Stray arguments are checked below with spillway's wording.
    leaf.allowExcessArguments(true);
    const positionals = command.positionals ?? "";
    for (const argument of positionals.split(" ").filter((word) => word !== "")) {
      leaf.argument(argument);
    }
    const options = command.flags.map((spec) => {
      const option = toOption(spec, command);
      leaf.addOption(option);
      return [spec.name, option] as const;
    });
    leaf.action(async (..._: unknown[]) => {
      checkPositionals(leaf.args, positionals, command.name);
      await runner(command, readFlags(leaf, new Map(options)));
    });
  }
  return root;
}

/** The settings every level shares: output through `io`, errors as usage errors, our help. */
function configure(
  commander: Commander,
  path: string,
  io: CommandIo,
  help: () => string,
): Commander {
  return commander
    .helpCommand(false)
    .helpOption("-h, --help")
    .configureHelp({ formatHelp: help })
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr, outputError: () => {} })
    .exitOverride((error) => {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.help") {
        throw error;
      }
      throw usage(spillwayWording(error, commander), path, error.code);
    });
}

function toOption(spec: FlagSpec, command: Command): Option {
  const long = `--${spec.name}`;
  const flags = spec.short === undefined ? long : `-${spec.short}, ${long}`;
  const fail = (message: string) => usage(message, command.name, "spillway.flag");
  if (spec.kind === "count") {
    return new Option(flags, spec.help).argParser((_: unknown, previous: unknown) =>
      (typeof previous === "number" ? previous : 0) + 1
    );
  }
  if (spec.kind === "boolean") {
    const option = new Option(flags, spec.help).argParser((_: unknown, previous: unknown) => {
      if (previous === true) throw fail(`${long} given twice`);
      return true;
    });
    // commander reads `--no-x` as "x defaults to true"; ours is a plain flag, off by default.
    return spec.name.startsWith("no-") ? option.default(false) : option;
  }
  return new Option(`${flags} <${placeholder(spec)}>`, spec.help).argParser(
    (value: string, previous: unknown) => {
      if (looksLikeFlag(value, command.flags)) {
        throw fail(`${long} needs a value (${long} ${placeholder(spec)})`);
      }
      if (spec.choices !== undefined && !spec.choices.includes(value)) {
        throw fail(
          `${long} ${JSON.stringify(value)} is not accepted (expected ${
            spec.choices.join(" or ")
          })`,
        );
      }
      if (spec.repeatable === true) return [...(Array.isArray(previous) ? previous : []), value];
      if (previous !== undefined) throw fail(`${long} given twice`);
      return value;
    },
  );
}

/** `--config --quiet`: commander would take `--quiet` as the file name; we refuse. */
function looksLikeFlag(value: string, specs: readonly FlagSpec[]): boolean {
  if (value.startsWith("--")) {
    const name = value.slice(2).split("=")[0];
    return name === "help" || specs.some((spec) => spec.name === name);
  }
  if (/^-[A-Za-z]+$/.test(value)) {
    const shorts = new Set(["h", ...specs.flatMap((spec) => spec.short ?? [])]);
    return [...value.slice(1)].every((letter) => shorts.has(letter));
  }
  return false;
}

function checkPositionals(given: readonly string[], declared: string, command: string): void {
  const words = declared.split(" ").filter((word) => word !== "");
  if (words.at(-1)?.endsWith("...]") || words.at(-1)?.endsWith("...>")) return;
  const stray = given[words.length];
  if (stray !== undefined) {
    throw usage(`unexpected argument ${JSON.stringify(stray)}`, command, "spillway.excess");
  }
}

function readFlags(leaf: Commander, options: ReadonlyMap<string, Option>): ParsedFlags {
  const value = (name: string): unknown => {
    const option = options.get(name);
    return option === undefined ? undefined : leaf.getOptionValue(option.attributeName());
  };
  return {
    positionals: [...leaf.args],
    string: (name) => {
      const found = value(name);
      return Array.isArray(found) ? found.at(-1) : typeof found === "string" ? found : undefined;
    },
    strings: (name) => {
      const found = value(name);
      return Array.isArray(found) ? found : typeof found === "string" ? [found] : [];
    },
    boolean: (name) => {
      const found = value(name);
      return found === true || (typeof found === "number" && found > 0);
    },
    count: (name) => {
      const found = value(name);
      return typeof found === "number" ? found : found === true ? 1 : 0;
    },
  };
}

/** The first command (by its full name) that takes the flag `long`, if any. */
function commandTaking(commander: Commander, long: string, prefix = ""): string | undefined {
  for (const command of commander.commands) {
    const name = `${prefix}${command.name()}`;
    if (command.options.some((option) => option.long === long)) return name;
    const nested = commandTaking(command, long, `${name} `);
    if (nested !== undefined) return nested;
  }
  return undefined;
}

/**
 * commander's message in spillway's voice: "flag" as the help pages say, no
 * `error: ` prefix, the suggestion on the same line, and a hint where the
 * flag belongs. A message this does not recognize is kept as commander
 * wrote it.
 */
function spillwayWording(error: CommanderError, commander: Commander): string {
  const message = error.message.replace(/^error: /, "");
  const suggestion = /\n\(Did you mean (.*)\?\)$/.exec(message)?.[1];
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? "";
  const didYouMean = suggestion === undefined ? "" : ` (did you mean ${suggestion}?)`;
  switch (error.code) {
    case "commander.unknownOption": {
      const [name, value] = quoted.split("=", 2);
      const known = commander.options.find((option) => option.long === name);
      if (value !== undefined && known?.isBoolean() === true) return `${name} takes no value`;
      const owner = commander.parent === null && suggestion === undefined
        ? commandTaking(commander, name ?? "")
        : undefined;
      const hint = owner === undefined
        ? ""
        : ` (flags go after the command name, e.g. spillway ${owner} ${quoted})`;
      return `unknown flag ${quoted}${didYouMean}${hint}`;
    }
    case "commander.optionMissingArgument": {
      const [long, value] = quoted.replace(/^-\w, /, "").split(" ");
      return `${long} needs a value (${long} ${value?.replace(/^<(.*)>$/, "$1")})`;
    }
    case "commander.unknownCommand":
      return `unknown command "${quoted}"${didYouMean}`;
    case "commander.missingArgument":
      return `missing the ${quoted} argument`;
    default:
      return message.replace(/\n\(Did you mean (.*)\?\)$/, didYouMean);
  }
}

function usage(message: string, command: string, reason: string): SpillwayError {
  return new SpillwayError("usage", message, { command, reason });
}
