/**
 * `-v` on the command line: spillway's structured logs (`@logtape/logtape`,
 * categories under `spillway`) go to stderr as text lines. Without `-v`
 * nothing is configured and the library stays silent, as libraries should:
 * an embedding application configures logtape itself.
 *
 * @module
 */

import { configure, getTextFormatter, reset } from "@logtape/logtape";
import { sanitizeForTerminal } from "./sanitize.ts";

/**
 * Sends `spillway` logs to `write` (`-v`: info and up; `-vv`: debug).
 * Returns a function that undoes it.
 */
export async function enableVerboseLogging(
  verbosity: number,
  write: (line: string) => void,
): Promise<() => Promise<void>> {
  if (verbosity <= 0) return () => Promise.resolve();
  const format = getTextFormatter({ timestamp: "time" });
  await configure({
    reset: true,
    sinks: { stderr: (record) => write(sanitizeForTerminal(format(record).trimEnd()) + "\n") },
    loggers: [
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: ["stderr"] },
      { category: ["spillway"], lowestLevel: verbosity >= 2 ? "debug" : "info", sinks: ["stderr"] },
    ],
  });
  return () => reset();
}
