/**
 * The `spillway` command line (`deno task spillway <command> …`): a registry
 * of commands and the dispatch to them. Each command lives in
 * `src/commands/<name>.ts`; adding one is adding it to {@linkcode COMMANDS}.
 * Exit codes: 0 success, 1 failure, 2 usage error.
 *
 * @module
 */

import type { Command } from "./commands/command.ts";
import { type CommandIo, denoCommandIo } from "./commands/command_io.ts";
import { configCheckCommand } from "./commands/config_check.ts";
import { inspectCommand } from "./commands/inspect.ts";
import { queryCommand } from "./commands/query.ts";
import { formatCommandHelp, formatCommandList } from "./commands/_help.ts";
import { SpillwayError } from "./errors/spillway_error.ts";

/** Every command, in the order `spillway --help` lists them. */
export const COMMANDS: readonly Command[] = [queryCommand, configCheckCommand, inspectCommand];

/** Exit code for a bad command line. */
export const EXIT_USAGE = 2;

/**
 * Runs the command line `args` (without the program name) and returns the
 * exit code. Never throws: faults are printed to `io.stderr`.
 *
 * @param commands the registry to dispatch to; defaults to {@linkcode COMMANDS}
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { main } from "./cli.ts";
 * import { captureCommandIo } from "./commands/command_io.ts";
 * const io = captureCommandIo();
 * assert.equal(await main(["frobnicate"], io), 2);
 * assert.match(io.err(), /unknown command "frobnicate"/);
 * ```
 */
export async function main(
  args: readonly string[],
  io: CommandIo,
  commands: readonly Command[] = COMMANDS,
): Promise<number> {
  const first = args[0];
  if (first === undefined || first === "--help" || first === "-h") {
    (first === undefined ? io.stderr : io.stdout)(formatCommandList(commands));
    return first === undefined ? EXIT_USAGE : 0;
  }
  if (first === "help") return help(args.slice(1), io, commands);

  const found = findCommand(args, commands);
  if (found === undefined) return unknownCommand(args, io, commands);
  const [command, rest] = found;
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof SpillwayError && error.code === "usage") {
      io.stderr(
        `spillway ${command.name}: ${error.message}\n` +
          `Run \`spillway ${command.name} --help\` for usage.\n`,
      );
      return EXIT_USAGE;
    }
    if (error instanceof SpillwayError) {
      io.stderr(`spillway ${command.name}: ${error.message}\n`);
      return 1;
    }
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    io.stderr(`spillway ${command.name}: internal error (please report it):\n${detail}\n`);
    return 1;
  }
}

/** The command whose words start `args` (the longest match), and the args after them. */
function findCommand(
  args: readonly string[],
  commands: readonly Command[],
): [Command, readonly string[]] | undefined {
  let best: [Command, readonly string[]] | undefined;
  for (const command of commands) {
    const words = command.name.split(" ");
    if (words.every((word, i) => args[i] === word)) {
      if (best === undefined || words.length > best[0].name.split(" ").length) {
        best = [command, args.slice(words.length)];
      }
    }
  }
  return best;
}

function help(topic: readonly string[], io: CommandIo, commands: readonly Command[]): number {
  if (topic.length === 0) {
    io.stdout(formatCommandList(commands));
    return 0;
  }
  const found = findCommand(topic, commands);
  if (found === undefined || found[1].length > 0) return unknownCommand(topic, io, commands);
  io.stdout(formatCommandHelp(found[0]));
  return 0;
}

function unknownCommand(
  args: readonly string[],
  io: CommandIo,
  commands: readonly Command[],
): number {
  const first = args[0] ?? "";
  // `spillway config` alone: show the commands of that group.
  const group = commands.filter((command) => command.name.startsWith(`${first} `));
  const second = args[1];
  let what = `unknown command "${first}"`;
  if (first.startsWith("-")) {
    what =
      `unknown flag ${first} (flags go after the command name, e.g. spillway config check ${first})`;
  } else if (group.length > 0) {
    what = second === undefined || second.startsWith("-")
      ? `"${first}" needs a subcommand`
      : `unknown command "${first} ${second}"`;
  }
  const list = (group.length > 0 ? group : commands).map((command) =>
    `  ${command.name.padEnd(20)}  ${command.summary}\n`
  ).join("");
  io.stderr(`spillway: ${what}\nCommands:\n${list}Run \`spillway --help\` for more.\n`);
  return EXIT_USAGE;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args, denoCommandIo()));
}
