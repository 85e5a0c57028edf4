/**
 * What a 2026-07-28 request says of its sender: MCP's per-request `_meta`
 * envelope (`io.modelcontextprotocol/*`), which the SDK lifts off the
 * request into `ctx.mcpReq.envelope`. A 2025 request has none: its client
 * said who it is once, at `initialize`.
 *
 * @module
 */

import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  PROTOCOL_VERSION_META_KEY,
  type ServerContext,
} from "../service/sdk.ts";

/** What a client says it is (`clientInfo`). */
export interface ClientInfo {
  readonly name: string;
  readonly version: string;
}

/** A request's envelope, read. */
export interface RequestEnvelope {
  /** The protocol revision the request names (`"2026-07-28"`). */
  readonly protocol: string;
  /** The client's `clientInfo`, when it sent one. */
  readonly clientInfo?: ClientInfo;
  /**
   * The least severe log level the client wants for this request; absent,
   * it wants no log messages at all (the 2026-07-28 rule).
   */
  readonly logLevel?: LoggingLevel;
  /** The capabilities the client declares for this request (none when it sent none). */
  readonly capabilities: ClientCapabilities;
}

/** The envelope of the request `ctx` answers, or `undefined` for a 2025 request. */
export function requestEnvelope(ctx: ServerContext): RequestEnvelope | undefined {
  const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined;
  const protocol = envelope?.[PROTOCOL_VERSION_META_KEY];
  if (envelope === undefined || typeof protocol !== "string") return undefined;
  const info = envelope[CLIENT_INFO_META_KEY];
  const level = envelope[LOG_LEVEL_META_KEY];
  const capabilities = envelope[CLIENT_CAPABILITIES_META_KEY];
  return {
    protocol,
    capabilities: typeof capabilities === "object" && capabilities !== null
      ? capabilities as ClientCapabilities
      : {},
    ...(isClientInfo(info) ? { clientInfo: { name: info.name, version: info.version } } : {}),
    ...(typeof level === "string" ? { logLevel: level as LoggingLevel } : {}),
  };
}

function isClientInfo(value: unknown): value is { name: string; version: string } {
  return typeof value === "object" && value !== null &&
    typeof (value as { name?: unknown }).name === "string" &&
    typeof (value as { version?: unknown }).version === "string";
}
