/**
 * How a `spillway serve` gateway opens one client session: the session's
 * {@linkcode SessionHost} (its conversation, its policies under its
 * client's ceiling, its notices) and its MCP server, wired so that
 * disconnecting, idling out and closing each end the session once, with its
 * running calls cancelled and recorded.
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { DEFAULT_CLIENT } from "../config/serve_config.ts";
import { Duration } from "../config/duration.ts";
import type { Prompter } from "../machines/prompter.ts";
import type { NoticeSink } from "../machines/turn_dependencies.ts";
import { formatNotice } from "../review/notice.ts";
import { sanitizeForTerminal } from "../terminal/sanitize.ts";
import type { ExecutionService } from "../service/execution_service.ts";
import type { LateUpstreamSource } from "../service/upstream/late_upstream_source.ts";
import type { Server, ServerCapabilities, Transport } from "../service/sdk.ts";
import type { SessionStartEvent } from "../stream/events.ts";
import { newConversationId } from "../stream/new_conversation_id.ts";
import type { StreamStore } from "../stream/stream_store.ts";
import { ClientConversationId } from "./client_conversation_id.ts";
import { modernConversationId } from "./modern_conversation_id.ts";
import type { ConnectOptions } from "./connect_options.ts";
import { type GatewayOptions, PARK_PROGRESS_INTERVAL_MS } from "./gateway_options.ts";
import type { GatewaySession } from "./gateway_session.ts";
import { createSessionServer } from "./_session_server.ts";
import type { SessionCeiling } from "./session_ceiling.ts";
import type { SessionLimits } from "./_session_limits.ts";
import type { SessionRegistry } from "./_session_registry.ts";
import { serveCatalog } from "./serve_catalog.ts";
import type { UpstreamCatalog } from "./upstream_catalog.ts";
import { SessionHost } from "./session_host.ts";
import type { ClientInfo } from "./_request_envelope.ts";
import { InputCrossings } from "./input_crossings.ts";
import type { InputRounds } from "./input_rounds.ts";

const log = getLogger(["spillway", "gateway"]);

/** What a session is opened with: the gateway's parts it shares. */
export interface OpenSessionOptions {
  /** Its id, its client and its idle timeout. */
  readonly connect: ConnectOptions;
  /** The gateway's options (clients, notices, prompter, inspection, keep-alive). */
  readonly gateway: GatewayOptions;
  /** The shared execution service. */
  readonly service: ExecutionService;
  /** Where its conversation is recorded. */
  readonly store: StreamStore;
  /** What it lists and enforces under its client's ceiling. */
  readonly limits: SessionLimits;
  /** Where it is registered while connected. */
  readonly registry: SessionRegistry;
  /** The upstream servers that may not answer yet. */
  readonly late: readonly LateUpstreamSource[];
  /** The upstream servers' prompts and resources, once listed. */
  readonly catalog: UpstreamCatalog | undefined;
  /** What its server advertises at initialize. */
  readonly capabilities: ServerCapabilities;
  /** The id of the next call (unique across the gateway). */
  readonly nextCallId: () => string;
}

/** Notices name tools (from upstream servers, clients, config): one inert line each. */
const stderrNotices: NoticeSink = {
  notice: (fact) => console.error(sanitizeForTerminal(formatNotice(fact), { singleLine: true })),
};

/** What a server over a conversation needs to know of the connection it serves. */
export interface ServerWiring {
  /**
   * Whether the client went away: a request aborted then was not cancelled
   * by the client (a 2025 session's transport closed; a 2026-07-28 request's
   * connection closed, which is how such a client cancels).
   */
  readonly disconnected: () => boolean;
  /** Ends the HTTP response stream that carried a request (a 2025 SSE POST stream). */
  readonly closeRequestStream?: (requestId: string | number) => void;
  /** Where its 2026-07-28 calls wait between `input_required` rounds (the gateway's). */
  readonly rounds?: InputRounds;
}

/** A conversation of a gateway client, open: its registry entry, and servers over it. */
export interface OpenConversation {
  /** Its session: id, client, conversation, touch and close. */
  readonly session: GatewaySession;
  /**
   * Says what the client is (its `clientInfo`) and which protocol revision
   * it speaks; the first telling counts (it decides the client's ceiling and
   * is recorded with the conversation's first calls).
   */
  identify(clientInfo: ClientInfo | undefined, protocol: string): void;
  /** A new MCP server over this conversation: for one connection, or for one 2026-07-28 request. */
  server(wiring: ServerWiring): Server;
  /** Resolves when the conversation starts to close (for whatever reason). */
  readonly closing: Promise<void>;
}

/**
 * Opens a session over `transport` (not started yet) and connects its
 * server to it: a 2025 Streamable HTTP session, or (through the SDK's era
 * pinning) a stdio connection.
 *
 * @param transport the client's transport
 * @param options the session's connect options and the gateway's parts
 */
export async function openSession(
  transport: Transport,
  options: OpenSessionOptions,
): Promise<GatewaySession> {
  const conversation = openConversation(options);
  const server = connectionServer(conversation, transport);
  await server.connect(transport);
  return conversation.session;
}

/**
 * The server of a connection over `conversation`: it identifies the
 * conversation at `initialize` (a 2025 client) or at its first request (a
 * 2026-07-28 one: the SDK pins a stdio connection to that era), tells
 * `transport`'s close as a disconnection, and closes the conversation when
 * the connection ends.
 */
export function connectionServer(conversation: OpenConversation, transport: Transport): Server {
  // Set before the SDK sees the transport close (it then aborts every
  // request in flight): those aborts are the disconnection, not the client's.
  let disconnected = false;
  const server = conversation.server({
    disconnected: () => disconnected,
    closeRequestStream: (requestId) =>
      (transport as { closeSSEStream?: (id: typeof requestId) => void }).closeSSEStream?.(
        requestId,
      ),
  });
  const onTransportClose = transport.onclose;
  transport.onclose = () => {
    disconnected = true;
    onTransportClose?.();
  };
  server.oninitialized = () =>
    conversation.identify(
      server.getClientVersion(),
      server.getNegotiatedProtocolVersion() ?? LEGACY_PROTOCOL,
    );
  server.onclose = () => void conversation.session.close();
  return server;
}

/** The revision a 2025 client that did not say otherwise speaks. */
export const LEGACY_PROTOCOL = "2025-11-25";

/**
 * Opens a conversation: its {@linkcode SessionHost}, registered with the
 * gateway, closed once (by its connection's end, its idle timeout, or the
 * gateway's shutdown) with its running calls cancelled and recorded.
 */
export function openConversation(options: OpenSessionOptions): OpenConversation {
  const { connect, gateway, service, limits, registry } = options;
  const id = connect.id ?? crypto.randomUUID();
  const client = connect.client ?? DEFAULT_CLIENT;
  // With clients of their own tokens, each one's conversations are apart and named.
  const named = (gateway.clients?.length ?? 1) > 1;
  const conversationId = connect.conversationKey !== undefined
    ? modernConversationId(client, connect.conversationKey, { named })
    : named
    ? ClientConversationId.create(client)
    : newConversationId();
  const notices = gateway.noticeSink ?? stderrNotices;
  // The session's ceiling is its client's, known once the client said what it is.
  let identity: { readonly info: ClientInfo | undefined; readonly protocol: string } | undefined;
  let ceiling: { readonly value: SessionCeiling | undefined } | undefined;
  const ceilingNow = () => (ceiling ??= { value: limits.ceilingOf(identity?.info) }).value;
  // What its calls asked their client for, recorded with each call.
  const crossings = new InputCrossings({
    contents: gateway.config.serve().recordInputContents.value,
  });
  // Recorded once, with the conversation's first calls.
  let started = false;
  const opening = (): SessionStartEvent | undefined => {
    if (started || identity === undefined) return undefined;
    started = true;
    const { info, protocol } = identity;
    return {
      type: "session_start",
      client,
      protocol,
      ...(info === undefined ? {} : { client_info: { name: info.name, version: info.version } }),
      at: new Date().toISOString(),
    };
  };
  const host = new SessionHost({
    service,
    session: id,
    store: options.store,
    conversationId,
    policyFor: (tool) => limits.policy(ceilingNow(), tool),
    prompter: gateway.prompter ?? refusingPrompter,
    noticeSink: named
      ? { notice: (fact) => notices.notice({ ...fact, principal: client }) }
      : notices,
    available: () => service.list().map((tool) => tool.name),
    unavailableNote: () => notAnsweringNote(options.late),
    opening,
    inputsOf: (callIds) => crossings.take(callIds),
    ...(gateway.inspect === undefined ? {} : { inspect: gateway.inspect(id) }),
    ...(connect.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: connect.idleTimeoutMs }),
  });
  const servers = new Set<Server>();
  let closed: Promise<void> | undefined;
  const closing = Promise.withResolvers<void>();
  const session: GatewaySession = {
    id,
    client,
    conversationId,
    notify: {
      toolsChanged: () => {
        for (const server of servers) void server.sendToolListChanged().catch(() => {});
      },
      catalogChanged: (kind) => {
        for (const server of servers) {
          const sent = kind === "prompts"
            ? server.sendPromptListChanged()
            : server.sendResourceListChanged();
          void sent.catch(() => {});
        }
      },
    },
    touch: () => host.touch(),
    close: () => {
      closed ??= (async () => {
        closing.resolve();
        registry.forget(id);
        // Its running calls are cancelled; the cancellations are recorded
        // (the client is gone, but the conversation keeps what happened).
        host.stop("the client disconnected", { by: "disconnect" });
        await Promise.allSettled([...servers].map((server) => server.close()));
        await host.drained();
        await host.close();
        // The client's last session: its upstream servers are stopped.
        await registry.closed(client, id);
      })();
      return closed;
    },
  };
  // A session that went idle closed itself: its servers go with it.
  void host.ended.then((end) => {
    if (end.reason !== "idle") return;
    log.info("session {session} closed: no request for {timeout} (serve.session_idle_timeout)", {
      session: id,
      timeout: Duration.fromMs(connect.idleTimeoutMs ?? 0).toString(),
    });
    void session.close();
  });
  registry.opened(session, host);
  const identify = (info: ClientInfo | undefined, protocol: string) => {
    if (identity !== undefined) return;
    identity = { info, protocol };
    ceiling = undefined;
    limits.tell(info);
  };
  return {
    session,
    closing: closing.promise,
    identify,
    server: (wiring) => {
      const server = createSessionServer({
        session: id,
        client,
        service,
        host,
        tools: () => limits.tools(ceilingNow()),
        capabilities: options.capabilities,
        serverInfo: { name: "spillway", version: "0.1.0" },
        nextCallId: options.nextCallId,
        parkProgressIntervalMs: gateway.parkProgressIntervalMs ?? PARK_PROGRESS_INTERVAL_MS,
        disconnected: wiring.disconnected,
        ...(wiring.closeRequestStream === undefined
          ? {}
          : { closeRequestStream: wiring.closeRequestStream }),
        // A 2026-07-28 request says who sent it; the first one identifies the conversation.
        identify,
        crossings,
        ...(wiring.rounds === undefined ? {} : { rounds: wiring.rounds }),
      });
      servers.add(server);
      const onclose = server.onclose;
      server.onclose = () => {
        servers.delete(server);
        onclose?.();
      };
      // What the transport or the protocol could not handle (a line that is not
      // JSON-RPC, a reply to nothing) is skipped; `-v` shows it.
      server.onerror = (error) => log.warn("session {session}: {error}", { session: id, error });
      if (options.catalog !== undefined) {
        serveCatalog(server, options.catalog, {
          blobs: service.blobStore,
          owners: service.blobOwners,
          principal: client,
        });
      }
      return server;
    },
  };
}

const refusingPrompter: Prompter = {
  ask: () => Promise.reject(new Error("no terminal is attached to ask")),
  edit: () => Promise.reject(new Error("no terminal is attached to edit")),
};

/**
 * What the answer to an unknown tool adds while upstream servers do not
 * answer: `the tools of upstream servers that do not answer yet are not
 * listed: cannot start upstream server mcp.x: it did not answer initialize
 * within 30 s (it is started again in the background)`.
 */
function notAnsweringNote(sources: readonly LateUpstreamSource[]): string | undefined {
  const down = sources.flatMap((source) => source.down === undefined ? [] : [source.down]);
  if (down.length === 0) return undefined;
  return `the tools of upstream servers that do not answer yet are not listed: ${
    down.join("; ")
  } (started again in the background)`;
}
