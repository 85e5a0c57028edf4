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
import type { ServerCapabilities, Transport } from "../service/sdk.ts";
import { newConversationId } from "../stream/new_conversation_id.ts";
import type { StreamStore } from "../stream/stream_store.ts";
import { ClientConversationId } from "./client_conversation_id.ts";
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

/**
 * Opens a session over `transport` (not started yet) and connects its
 * server to it.
 *
 * @param transport the client's transport
 * @param options the session's connect options and the gateway's parts
 */
export async function openSession(
  transport: Transport,
  options: OpenSessionOptions,
): Promise<GatewaySession> {
  const { connect, gateway, service, limits, registry } = options;
  const id = connect.id ?? crypto.randomUUID();
  const client = connect.client ?? DEFAULT_CLIENT;
  // With clients of their own tokens, each one's conversations are apart and named.
  const named = (gateway.clients?.length ?? 1) > 1;
  const conversationId = named ? ClientConversationId.create(client) : newConversationId();
  const notices = gateway.noticeSink ?? stderrNotices;
  // The session's ceiling is its client's, known once it has initialized
  // (read by the policies and the tool list, which only run after `server` exists).
  let ceiling: { readonly value: SessionCeiling | undefined } | undefined;
  const ceilingNow = () => {
    if (ceiling !== undefined) return ceiling.value;
    const clientInfo = server.getClientVersion();
    const value = limits.ceilingOf(clientInfo);
    if (clientInfo !== undefined) ceiling = { value };
    return value;
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
    ...(gateway.inspect === undefined ? {} : { inspect: gateway.inspect(id) }),
    ...(connect.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: connect.idleTimeoutMs }),
  });
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
    disconnected: () => disconnected,
    closeRequestStream: (requestId) =>
      (transport as { closeSSEStream?: (id: typeof requestId) => void }).closeSSEStream?.(
        requestId,
      ),
  });
  // Set before the SDK sees the transport close (it then aborts every
  // request in flight): those aborts are the disconnection, not the client's.
  let disconnected = false;
  const onTransportClose = transport.onclose;
  transport.onclose = () => {
    disconnected = true;
    onTransportClose?.();
  };
  let closed: Promise<void> | undefined;
  const session: GatewaySession = {
    id,
    client,
    conversationId,
    server,
    touch: () => host.touch(),
    close: () => {
      closed ??= (async () => {
        registry.forget(id);
        // Its running calls are cancelled; the cancellations are recorded
        // (the client is gone, but the conversation keeps what happened).
        host.stop("the client disconnected", { by: "disconnect" });
        await server.close();
        await host.drained();
        await host.close();
        // The client's last session: its upstream servers are stopped.
        await registry.closed(client, id);
      })();
      return closed;
    },
  };
  server.oninitialized = () => limits.tell(server.getClientVersion());
  server.onclose = () => void session.close();
  // A session that went idle closed itself: its server goes with it.
  void host.ended.then((end) => {
    if (end.reason !== "idle") return;
    log.info("session {session} closed: no request for {timeout} (serve.session_idle_timeout)", {
      session: id,
      timeout: Duration.fromMs(connect.idleTimeoutMs ?? 0).toString(),
    });
    void session.close();
  });
  // What the transport or the protocol could not handle (a line that is not
  // JSON-RPC, a reply to nothing) is skipped; `-v` shows it.
  server.onerror = (error) => log.warn("session {session}: {error}", { session: id, error });
  registry.opened(session, host);
  if (options.catalog !== undefined) {
    serveCatalog(server, options.catalog, {
      blobs: service.blobStore,
      owners: service.blobOwners,
      principal: client,
    });
  }
  await server.connect(transport);
  return session;
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
