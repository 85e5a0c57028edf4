/**
 * How every command loads the configuration and reports an invalid one: a
 * count, then each problem on its own line, to stderr.
 *
 * @module
 */

import { loadConfig } from "../config/load_config.ts";
import type { SpillwayConfig } from "../config/spillway_config.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import { sanitizeForTerminal } from "../terminal/sanitize.ts";
import type { CommandIo } from "./command_io.ts";
import { configOptionsFromFlags } from "./_common_flags.ts";
import type { ParsedFlags } from "./_flags.ts";

/**
 * Prints the problems of a `config_invalid` error and returns true; returns
 * false (printing nothing) for any other error.
 */
export function printConfigProblems(error: unknown, io: CommandIo): boolean {
  if (!(error instanceof SpillwayError) || error.code !== "config_invalid") return false;
  const listed = error.details["errors"];
  const problems = Array.isArray(listed) ? listed.map(String) : [error.message];
  const count = problems.length === 1 ? "1 problem" : `${problems.length} problems`;
  io.stderr(`The configuration is invalid (${count}):\n`);
  // Problems quote the values they reject (from config files and --cfg): one line each.
  io.stderr(
    problems.map((line) => `  ${sanitizeForTerminal(line, { singleLine: true })}\n`).join(""),
  );
  return true;
}

/**
 * Loads the configuration the common flags ask for; on an invalid one,
 * prints its problems and returns undefined (the command exits 1).
 */
export async function loadConfigOrReport(
  flags: ParsedFlags,
  io: CommandIo,
): Promise<SpillwayConfig | undefined> {
  try {
    return await loadConfig(configOptionsFromFlags(flags, io));
  } catch (error) {
    if (printConfigProblems(error, io)) return undefined;
    throw error;
  }
}
