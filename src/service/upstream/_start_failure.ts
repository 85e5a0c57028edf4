/**
 * Private helper: what the connection machine says when a start fails, a
 * relisting fails or a server is started again, in the words a person
 * needs: why an upstream server could not be started (`cannot start
 * upstream server mcp.x: it did not answer initialize within 30 s`), from
 * what the machine noted and what the link's transport says after it was
 * stopped.
 *
 * @module
 */

import { SpillwayError } from "../../errors/spillway_error.ts";
import { SdkError, SdkErrorCode } from "../sdk.ts";
import { plain, upstreamLog } from "./_upstream_log.ts";
import { reasonText } from "../../errors/reason_text.ts";
import { HttpUpstreamTransport } from "./http_upstream_transport.ts";
import { malformedFlaw } from "./malformed_reply_error.ts";
import { describeExit, type UpstreamLink, type UpstreamServer } from "./upstream_link.ts";
import { isNotFound } from "../../platform/file_errors.ts";

/** The step of a start: the handshake, then the first listing. */
export type StartStep = "initialize" | "tools/list";

/** What the machine knows of a start that failed. */
export interface StartFailure {
  /** The step it failed in. */
  readonly step: StartStep;
  /** What the step threw; absent when the time was up or the connection was closed. */
  readonly cause?: unknown;
  /** Whether the start-up timeout passed. */
  readonly expired: boolean;
}

/** What {@linkcode startFailureError} needs besides the failure. */
export interface StartContext {
  /** The source name, `"mcp.<server>"`. */
  readonly name: string;
  /** Where the server is (its command or URL is named). */
  readonly server: UpstreamServer;
  /** The link of the start, stopped already. */
  readonly link: UpstreamLink;
  /** The start-up timeout, in ms. */
  readonly startupTimeoutMs: number;
  /** Whether the connection was closed during the start. */
  readonly closing: boolean;
  /** The revision asked for (`providers.mcp.<name>.protocol`). Default: `"auto"`. */
  readonly protocol?: string;
}

/**
 * The `tool_unavailable` error whoever waited for the start gets, and the
 * reason alone (for the log).
 */
export function startFailureError(
  failure: StartFailure,
  context: StartContext,
): { readonly error: SpillwayError; readonly why: string } {
  const why = startFailureText(failure, context);
  const { name, server } = context;
  const error = new SpillwayError(
    "tool_unavailable",
    `cannot start upstream server ${name}: ${why}`,
    {
      source: name,
      ...(server.kind === "http" ? { url: server.url } : { command: server.process.command }),
    },
    { cause: failure.cause },
  );
  return { error, why };
}

function startFailureText(failure: StartFailure, context: StartContext): string {
  const { step, cause, expired } = failure;
  const { server, link } = context;
  if (server.kind === "stdio" && isNotFound(cause)) {
    return `command not found: \`${server.process.command}\``;
  }
  const transport = link.transport;
  const unreachable = transport instanceof HttpUpstreamTransport
    ? transport.explain(cause)
    : undefined;
  if (unreachable !== undefined && server.kind === "http") return `${server.url}: ${unreachable}`;
  const status = transport.exitStatus;
  if (status !== undefined && !transport.closedByUs) {
    return `it exited (${describeExit(status)}) during the MCP handshake`;
  }
  if (cause instanceof SdkError && cause.code === SdkErrorCode.EraNegotiationFailed) {
    return eraText(context, cause);
  }
  if (expired) return `it did not answer ${step} within ${seconds(context.startupTimeoutMs)}`;
  if (context.closing) return `it was closed before it answered ${step}`;
  const flaw = malformedFlaw(cause);
  if (flaw !== undefined) return `it answered ${step} with ${flaw}`;
  return reasonText(cause);
}

/** Why the handshake found no revision both sides speak, naming the key that chose it. */
function eraText(context: StartContext, cause: SdkError): string {
  const key = `providers.mcp.${context.name.replace(/^mcp\./, "")}.protocol`;
  const protocol = context.protocol ?? "auto";
  if (protocol === "auto") return `no MCP revision both speak (${cause.message})`;
  return `it does not serve MCP ${protocol}, which ${key} = "${protocol}" asks for ` +
    `(${cause.message}): set protocol = "auto" to speak what it serves`;
}

/** `30000` → `30 s`, `500` → `0.5 s`: a limit as configured, in seconds. */
function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

/** Logs a failed start: a warning, or a note when the connection was closed during it. */
export function logStartFailure(name: string, why: string, closing: boolean): void {
  // Closing the connection during a start is no fault of the server's.
  if (closing) upstreamLog.info(plain(`upstream server ${name}: ${why}`));
  else upstreamLog.warn(plain(`cannot start upstream server ${name}: ${why}`));
}

/** Logs a listing of changed tools that failed; the tools listed before stay. */
export function logRelistFailure(name: string, cause: unknown): void {
  upstreamLog.warn(
    plain(`${name}: its tools changed, but listing them failed: ${reasonText(cause)}`),
  );
}

/** `upstream server mcp.x exited (code 3); starting it again`: said once per restart. */
export function restartWarning(link: UpstreamLink, server: UpstreamServer): string {
  return `${link.lossText()}; ${server.kind === "http" ? "connecting again" : "starting it again"}`;
}
