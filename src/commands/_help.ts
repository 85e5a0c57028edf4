/**
 * Help texts: the command list of `spillway --help` (and of a group such as
 * `spillway config`), and the page of `spillway <command> --help`, built
 * from the commands' own descriptions so they never drift from what the
 * commands accept.
 *
 * @module
 */

import type { Command } from "./command.ts";
import { flagSynopsis, HELP_FLAG } from "./_flags.ts";
import { formatTable } from "./_table.ts";
import { programName } from "./_program_name.ts";

/** The page `spillway <command> --help` prints. */
export function formatCommandHelp(command: Command): string {
  const specs = [...command.flags, HELP_FLAG];
  const flags = formatTable(specs.map((spec) => [flagSynopsis(spec), spec.help]));
  return [
    `spillway ${command.name}: ${command.summary}\n`,
    `Usage: ${command.usage}\n`,
    command.description.trimEnd() + "\n",
    `Flags:\n${flags}`,
  ].join("\n");
}

/**
 * The page `spillway --help` prints (what spillway is and its commands), or
 * with `group`, the page of `spillway <group>` (the commands of that group).
 */
export function formatCommandList(commands: readonly Command[], group?: string): string {
  const list = formatTable(commands.map((command) => [command.name, command.summary]));
  return [
    group === undefined
      ? "spillway: runs LLM tool calls and bounds what they return.\n"
      : `spillway ${group}: one of these commands.\n`,
    `Usage: ${programName()} ${group === undefined ? "" : `${group} `}<command> [flags]\n`,
    `Commands:\n${list}`,
    `Run \`${programName()} <command> --help\` for a command's flags.\n`,
  ].join("\n");
}
