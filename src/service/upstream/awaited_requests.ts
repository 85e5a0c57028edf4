/**
 * The requests a client transport sent to an upstream server that still
 * wait for their answer, as both transports ({@linkcode LineStdioClientTransport},
 * {@linkcode HttpUpstreamTransport}) keep them: so that a reply can be told
 * to answer one of them, a late answer to a cancelled one dropped quietly,
 * and a reply that names no request fail all of them at once.
 *
 * @module
 */

import type { JSONRPCMessage, RequestId } from "../sdk.ts";

/** How many ids of cancelled requests are remembered, to drop their late answers quietly. */
const REMEMBERED_CANCELLATIONS = 1024;

/** A request sent and not yet answered. */
export interface AwaitedRequest {
  /** The id as it was sent. */
  readonly id: RequestId;
  /** The request as a person reads it: `tools/call \`lint\``, `initialize`. */
  readonly label: string;
}

/**
 * Requests sent and not yet answered, by `String(id)` (the SDK matches ids
 * that way too), and the ids of those the client cancelled.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AwaitedRequests } from "./awaited_requests.ts";
 * const awaited = new AwaitedRequests();
 * awaited.sent({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "lint" } });
 * awaited.sent({ jsonrpc: "2.0", id: 2, method: "ping" });
 * assert.equal(awaited.take(1)?.label, "tools/call `lint`");
 * assert.deepEqual(awaited.takeAll(), [{ id: 2, label: "ping" }]);
 * assert.equal(awaited.size, 0);
 * ```
 */
export class AwaitedRequests {
  readonly #awaiting = new Map<string, AwaitedRequest>();
  /** Ids of requests the client cancelled, oldest first. */
  readonly #cancelled = new Set<string>();

  /** How many requests wait for their answer. */
  get size(): number {
    return this.#awaiting.size;
  }

  /** Call with every message sent: notes requests, and forgets the ones cancelled. */
  sent(message: JSONRPCMessage): void {
    if (!("method" in message)) return;
    if ("id" in message) {
      const params = message.params;
      const label = message.method === "tools/call" && typeof params?.name === "string"
        ? `tools/call \`${params.name}\``
        : message.method;
      this.#awaiting.set(String(message.id), { id: message.id, label });
    } else if (message.method === "notifications/cancelled") {
      const requestId = message.params?.requestId;
      if (typeof requestId !== "string" && typeof requestId !== "number") return;
      const key = String(requestId);
      if (!this.#awaiting.delete(key)) return;
      this.#cancelled.add(key);
      if (this.#cancelled.size > REMEMBERED_CANCELLATIONS) {
        this.#cancelled.delete(this.#cancelled.values().next().value ?? key);
      }
    }
  }

  /** Whether request `id` waits. */
  has(id: RequestId): boolean {
    return this.#awaiting.has(String(id));
  }

  /** Request `id`, which no longer waits (it is answered), or `undefined` when it did not wait. */
  take(id: RequestId): AwaitedRequest | undefined {
    const key = String(id);
    const request = this.#awaiting.get(key);
    this.#awaiting.delete(key);
    return request;
  }

  /** Every request waiting, which no longer wait (a reply that names none answers them all). */
  takeAll(): AwaitedRequest[] {
    const all = [...this.#awaiting.values()];
    this.#awaiting.clear();
    return all;
  }

  /** Whether `id` is a request the client cancelled (forgetting it: one late answer is expected). */
  takeCancelled(id: RequestId): boolean {
    return this.#cancelled.delete(String(id));
  }

  /** Forgets everything (the connection ended). */
  clear(): void {
    this.#awaiting.clear();
    this.#cancelled.clear();
  }
}
