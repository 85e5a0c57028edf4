/**
 * The sessions a `spillway serve` gateway has connected, with each one's
 * host, and each client's sessions (its upstream connections go with its
 * last one: {@linkcode ClientRegistry}). It routes what the upstream servers
 * announce: a changed tool list to every session, a client's changed prompts
 * or resources to that client's sessions.
 *
 * @module
 */

import type { CatalogKind } from "./client_catalog.ts";
import { ClientRegistry, type ClientRegistryOptions } from "./client_registry.ts";
import type { GatewaySession } from "./gateway_session.ts";
import type { SessionHost } from "./session_host.ts";

/** The connected sessions and their hosts, by session id. */
export class SessionRegistry {
  readonly #sessions = new Map<string, GatewaySession>();
  readonly #hosts = new Map<string, SessionHost>();
  /** Each client's sessions: its upstream connections go with its last one. */
  readonly #clients: ClientRegistry;

  /** @param options the clients, and how to release one whose last session ended */
  constructor(options: ClientRegistryOptions) {
    this.#clients = new ClientRegistry(options);
  }

  /** The sessions connected now. */
  get sessions(): readonly GatewaySession[] {
    return [...this.#sessions.values()];
  }

  /** The hosts of the sessions connected now. */
  get hosts(): readonly SessionHost[] {
    return [...this.#hosts.values()];
  }

  /** `session` connected, its calls run by `host`. */
  opened(session: GatewaySession, host: SessionHost): void {
    this.#sessions.set(session.id, session);
    this.#hosts.set(session.id, host);
    this.#clients.opened(session.client, session.id);
  }

  /** Session `id` is closing: it is no longer listed (nor its host). */
  forget(id: string): void {
    this.#sessions.delete(id);
    this.#hosts.delete(id);
  }

  /**
   * Session `id` of `client` has closed; when it was the client's last, its
   * upstream servers are stopped. Resolves once they are.
   */
  closed(client: string, id: string): Promise<void> {
    return this.#clients.closed(client, id);
  }

  /** An upstream's tools changed: every client is told. */
  toolsChanged(): void {
    for (const session of this.#sessions.values()) session.notify.toolsChanged();
  }

  /** A client's connection says its prompts or resources changed: that client's sessions are told. */
  catalogChanged(kind: CatalogKind, client: string): void {
    for (const session of this.sessions.filter((session) => session.client === client)) {
      session.notify.catalogChanged(kind);
    }
  }
}
