/**
 * How every command reports an invalid configuration: a count, then each
 * problem on its own line, to stderr.
 *
 * @module
 */

import { SpillwayError } from "../errors/spillway_error.ts";
import { sanitizeForTerminal } from "../host/sanitize.ts";
import type { CommandIo } from "./command_io.ts";

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
