/**
 * The clients of a `spillway serve` gateway and their sessions. A client
 * is a principal: the name of the token its requests carry (`default`, or
 * NAME of `[serve.tokens.NAME]`). Its sessions share what the gateway keeps
 * for it (its own connection to each upstream server, its stored outputs);
 * once its last session has ended, what the tool sources keep for it is
 * released (its upstream servers are stopped), and its next session starts
 * afresh.
 *
 * @module
 */

import { DEFAULT_CLIENT } from "../config/serve_config.ts";

/** Options of {@linkcode ClientRegistry}. */
export interface ClientRegistryOptions {
  /**
   * The clients the gateway tells apart. With more than one, conversations
   * record their client and notices name it. Default: the default client alone.
   */
  readonly clients?: readonly string[];
  /** Releases what the sources keep for a client whose last session ended. */
  readonly release: (client: string) => Promise<void>;
}

/**
 * Which sessions each client has open.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ClientRegistry } from "./client_registry.ts";
 * const released: string[] = [];
 * const registry = new ClientRegistry({
 *   clients: ["default", "alice"],
 *   release: (client) => Promise.resolve(void released.push(client)),
 * });
 * registry.opened("alice", "s1");
 * registry.opened("alice", "s2");
 * await registry.closed("alice", "s1");
 * assert.deepEqual(released, []);
 * await registry.closed("alice", "s2");
 * assert.deepEqual(released, ["alice"]);
 * assert.equal(registry.toldApart, true);
 * ```
 */
export class ClientRegistry {
  readonly #clients: readonly string[];
  readonly #release: (client: string) => Promise<void>;
  readonly #sessions = new Map<string, Set<string>>();

  /** @param options the clients, and how to release one */
  constructor(options: ClientRegistryOptions) {
    this.#clients = options.clients ?? [DEFAULT_CLIENT];
    this.#release = options.release;
  }

  /**
   * Whether the gateway serves several clients, which it tells apart by
   * their tokens: then each conversation records its client and each notice
   * names it.
   */
  get toldApart(): boolean {
    return this.#clients.length > 1;
  }

  /** The sessions `client` has open now. */
  sessionsOf(client: string): number {
    return this.#sessions.get(client)?.size ?? 0;
  }

  /** Session `session` of `client` opened. */
  opened(client: string, session: string): void {
    const sessions = this.#sessions.get(client) ?? new Set();
    sessions.add(session);
    this.#sessions.set(client, sessions);
  }

  /**
   * Session `session` of `client` ended; when it was the client's last, what
   * the sources keep for the client is released. Resolves once it is.
   */
  async closed(client: string, session: string): Promise<void> {
    const sessions = this.#sessions.get(client);
    if (sessions === undefined || !sessions.delete(session)) return;
    if (sessions.size > 0) return;
    this.#sessions.delete(client);
    await this.#release(client);
  }
}
