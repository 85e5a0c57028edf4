/**
 * Private helper: the structured log of the upstream sources (category
 * `spillway.upstream`, shown by `-v`), and how a reply the transport or the
 * client could not deliver is put into words there.
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { MalformedReplyError } from "./malformed_reply_error.ts";

/** The upstream sources' logger. */
export const upstreamLog = getLogger(["spillway", "upstream"]);

/** A log message taken literally: logtape reads `{…}` in messages as placeholders. */
export function plain(text: string): string {
  return text.replaceAll("{", "{{").replaceAll("}", "}}");
}

/** Logs what the transport or the client of `source` could not deliver. */
export function logReplyFault(source: string, error: Error): void {
  if (!(error instanceof MalformedReplyError)) {
    upstreamLog.warn(plain(`${source}: ${error.message}`));
    return;
  }
  const fate = error.request !== undefined
    ? `it answers ${error.request}, which fails`
    : error.failed.length > 0
    ? `it cannot be matched to one request, so every request waiting fails: ${
      error.failed.join(", ")
    }`
    : error.waiting === 0
    ? "no request was waiting for an answer"
    : `it names no request that waits for an answer, so it cannot be matched to one; ` +
      (error.waiting === 1
        ? "the request still waiting ends at its timeout at the latest"
        : `the ${error.waiting} requests still waiting end at their timeouts at the latest`);
  upstreamLog.warn(plain(`${source}: the server wrote ${error.account}; ${fate}`));
}

/**
 * The log of which MCP revision each upstream connection speaks (category
 * `spillway.protocol`, shown by `-v`): a line per start, kept apart from
 * `spillway.upstream`, whose lines are faults.
 */
export const protocolLog = getLogger(["spillway", "protocol"]);

/** Logs the revision a connection speaks (`mcp.x speaks MCP 2026-07-28 (negotiated)`). */
export function logNegotiated(source: string, version: string, known: boolean): void {
  protocolLog.info(
    plain(
      `${source} speaks MCP ${version} (${
        known ? "as an earlier connection found" : "negotiated"
      })`,
    ),
  );
}

/** Logs a `subscriptions/listen` the server refused: its list changes go unheard. */
export function logListenFailure(source: string, error: unknown): void {
  const why = error instanceof Error ? error.message : String(error);
  upstreamLog.warn(
    plain(`${source}: cannot listen for its list changes (subscriptions/listen): ${why}`),
  );
}
