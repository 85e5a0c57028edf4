/**
 * What an `upstreamConnection` actor ({@linkcode upstreamConnectionMachine})
 * is started with, what it is told, and what it tells its listeners.
 *
 * @module
 */

import type { SpillwayError } from "../../errors/spillway_error.ts";
import type { ToolDefinition } from "../tool_source.ts";
import type { RestartPolicy } from "./restart_policy.ts";
import type { UpstreamCallRelays } from "./upstream_call_relays.ts";
import type { UpstreamLink, UpstreamServer } from "./upstream_link.ts";
import type { ProtocolVerdict, UpstreamProtocol } from "./upstream_protocol.ts";

/** What an `upstreamConnection` actor is started with. */
export interface UpstreamConnectionInput {
  /** The source name, `"mcp.<server>"`. */
  readonly name: string;
  /** Where the server is. */
  readonly server: UpstreamServer;
  /** How long the handshake and a listing may take, in ms. */
  readonly startupTimeoutMs: number;
  /** When a connection that is down starts again. */
  readonly restart: RestartPolicy;
  /** The relays of the connection's calls, installed on every link's client. */
  readonly relays: UpstreamCallRelays;
  /** Tells a person what they should know (a server started again). */
  readonly warn: (message: string) => void;
  /** The revision to speak (`providers.mcp.<name>.protocol`). */
  readonly protocol: UpstreamProtocol;
  /** What `auto` found out, shared by the server's connections. */
  readonly verdict: ProtocolVerdict;
}

/** A connection that answers: its link and the tools it listed. */
export interface LiveConnection {
  /** The transport and client of this life of the connection. */
  readonly link: UpstreamLink;
  /** The server's tools, as last listed. */
  readonly tools: readonly ToolDefinition[];
  /** Their names. */
  readonly names: ReadonlySet<string>;
}

/** What the connection is told. */
export type UpstreamConnectionEvent =
  /** Someone needs the server: start it unless it runs. */
  | { readonly type: "connect" }
  /** Stop the server and end. */
  | { readonly type: "close" }
  /** The link's transport closed by itself. */
  | { readonly type: "server.gone" }
  /** The server said its tools changed. */
  | { readonly type: "tools.changed" }
  /** The server said its prompts or resources changed. */
  | { readonly type: "catalog.changed"; readonly kind: "prompts" | "resources" }
  /** The server said a subscribed resource was updated. */
  | { readonly type: "resource.updated"; readonly uri: string };

/** What the connection tells whoever listens (`actor.on(type, …)`). */
export type UpstreamConnectionEmitted =
  /** The server answers. */
  | { readonly type: "connection.ready"; readonly live: LiveConnection }
  /** A start failed (or the connection waits to start again after one). */
  | { readonly type: "connection.failed"; readonly error: SpillwayError }
  /** The tools were listed anew. */
  | { readonly type: "tools.changed" }
  /** The server said its prompts or resources changed. */
  | { readonly type: "catalog.changed"; readonly kind: "prompts" | "resources" }
  /** The server said a subscribed resource was updated. */
  | { readonly type: "resource.updated"; readonly uri: string };
