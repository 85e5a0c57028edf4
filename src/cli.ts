/**
 * The `spillway` command line (`deno task spillway <command> …`): the
 * registry of commands and the exit codes. Each command lives in
 * `src/commands/<name>.ts`; adding one is adding it to {@linkcode COMMANDS}.
 * Parsing and help are built from the registry by `commands/_program.ts`
 * (on `commander`). Exit codes: 0 success, 1 failure, 2 usage error.
 *
 * @module
 */

import type { Command } from "./commands/command.ts";
import { type CommandIo, denoCommandIo } from "./commands/command_io.ts";
import { configCheckCommand } from "./commands/config_check.ts";
import { conversationCompactCommand } from "./commands/conversation_compact.ts";
import { conversationGcCommand } from "./commands/conversation_gc.ts";
import { conversationLsCommand } from "./commands/conversation_ls.ts";
import { conversationShowCommand } from "./commands/conversation_show.ts";
import { inspectCommand } from "./commands/inspect.ts";
import { queryCommand } from "./commands/query.ts";
import { serveCommand } from "./commands/serve.ts";
import { printConfigProblems } from "./commands/_config_problems.ts";
import { formatCommandList } from "./commands/_help.ts";
import { runProgram } from "./commands/_program.ts";
import { SpillwayError } from "./errors/spillway_error.ts";
import { sanitizeForTerminal } from "./terminal/sanitize.ts";
import { SPILLWAY_VERSION } from "./version.ts";

/** Every command, in the order `spillway --help` lists them. */
export const COMMANDS: readonly Command[] = [
  queryCommand,
  conversationLsCommand,
  conversationShowCommand,
  conversationCompactCommand,
  conversationGcCommand,
  configCheckCommand,
  serveCommand,
  inspectCommand,
];

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
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    io.stdout(`spillway ${SPILLWAY_VERSION}\n`);
    return 0;
  }
  const words = args[0] === "help" ? helpWords(args.slice(1), commands) : args;
  let running: Command | undefined;
  try {
    const outcome = await runProgram(words, io, commands, (command) => {
      running = command;
    });
    if (outcome.kind === "help") return outcome.requested ? 0 : EXIT_USAGE;
    return outcome.code;
  } catch (error) {
    // Messages quote outside values (names, arguments, config values).
    const printError = (text: string) => io.stderr(sanitizeForTerminal(text));
    const name = running?.name ?? "";
    const prefix = name === "" ? "spillway" : `spillway ${name}`;
    if (error instanceof SpillwayError && error.code === "usage") {
      const where = typeof error.details["command"] === "string" ? error.details["command"] : name;
      const spelled = where === "" ? "spillway" : `spillway ${where}`;
      const list = error.details["reason"] === "commander.unknownCommand"
        ? commandsUnder(where, commands)
        : "";
      printError(
        `${spelled}: ${error.message}\n${list}Run \`deno task ${spelled} --help\` for usage.\n`,
      );
      return EXIT_USAGE;
    }
    // Found once the tool sources started (a tool a server does not list): as at load.
    if (printConfigProblems(error, io)) return 1;
    if (error instanceof SpillwayError) {
      printError(`${prefix}: ${error.message}\n`);
      return 1;
    }
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    printError(`${prefix}: internal error (please report it):\n${detail}\n`);
    return 1;
  }
}

/**
 * `spillway help config check` is `spillway config check --help`; a topic
 * that names no command runs as is, so it is reported as unknown.
 */
function helpWords(topic: readonly string[], commands: readonly Command[]): readonly string[] {
  const known = commands.some((command) => {
    const words = command.name.split(" ");
    return topic.every((word, i) => words[i] === word);
  });
  return known ? [...topic, "--help"] : topic;
}

/** The commands under `group` ("" for all), as the list `--help` shows. */
function commandsUnder(group: string, commands: readonly Command[]): string {
  const members = commands.filter((command) =>
    group === "" || command.name.startsWith(`${group} `)
  );
  const page = formatCommandList(members, group === "" ? undefined : group);
  return page.slice(page.indexOf("Commands:\n")).split("\n\n")[0] + "\n";
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args, denoCommandIo()));
}
