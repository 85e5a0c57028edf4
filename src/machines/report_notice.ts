/**
 * Reports a cap notice twice: the notice sink gets the terminal line, the
 * `spillway.cap` logger the same fact as structured properties. Both happen
 * for every cut; the notice is the only sign that the assistant got less
 * than the terminal showed.
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { formatNotice, type NoticeFact } from "../review/notice.ts";
import type { NoticeSink } from "./turn_dependencies.ts";

const capLogger = getLogger(["spillway", "cap"]);

/**
 * Hands `fact` to the sink and logs it at `warn`.
 *
 * @param sink the terminal side (prints `formatNotice(fact)`)
 * @param fact the cut that happened
 */
export function reportNotice(sink: NoticeSink, fact: NoticeFact): void {
  sink.notice(fact);
  // Formatted only for a log that takes it: a batch cut at its ceiling
  // reports thousands, and most embedders configure no log.
  if (capLogger.isEnabledFor("warning")) {
    capLogger.warn("{notice}", { notice: formatNotice(fact), ...fact });
  }
}
