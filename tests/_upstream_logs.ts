/**
 * Test helper: the `spillway.upstream` log lines, captured for one test,
 * with a count a test can wait on (a line logged is the event that says the
 * source got that far).
 */

import { configure, type LogRecord, reset } from "@logtape/logtape";
import { Milestones } from "../src/testing/tool_source_contract.ts";

/** The log lines captured, and a count of them a test can wait on. */
export interface CapturedLogs extends AsyncDisposable {
  readonly lines: string[];
  readonly logged: Milestones;
}

/** Sends `spillway.upstream` logs to a list for the test's duration (`await using`). */
export async function captureLogs(): Promise<CapturedLogs> {
  const lines: string[] = [];
  const logged = new Milestones();
  await configure({
    reset: true,
    sinks: {
      memory: (record: LogRecord) => {
        lines.push(record.message.join(""));
        logged.add();
      },
    },
    loggers: [
      { category: ["spillway", "upstream"], lowestLevel: "debug", sinks: ["memory"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: ["memory"] },
    ],
  });
  return { lines, logged, [Symbol.asyncDispose]: () => reset() };
}
