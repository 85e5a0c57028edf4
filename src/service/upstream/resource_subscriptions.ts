/**
 * The resource subscriptions of one upstream connection: how many of its
 * principal's sessions subscribe to each resource, and what holds each on
 * the server. A 2025-11-25 server is sent `resources/subscribe` on the
 * first subscription and `resources/unsubscribe` after the last; a
 * 2026-07-28 server has no such methods: each resource gets a
 * `subscriptions/listen` stream of its own (`resourceSubscriptions`), closed
 * after the last. Either way the server's `notifications/resources/updated`
 * reach the link's handler. A new life of the server knows none of the
 * last one's: {@linkcode ResourceSubscriptions.renew} makes them again.
 *
 * @module
 */

import { reasonText } from "../../errors/reason_text.ts";
import type { McpSubscription } from "../sdk.ts";
import type { UpstreamLink } from "./upstream_link.ts";
import { plain, upstreamLog } from "./_upstream_log.ts";

/** Limits of one request. */
export interface SubscriptionRequestOptions {
  /** Cancels the request (not the subscription). */
  readonly signal?: AbortSignal;
  /** How long the server may take to acknowledge, in ms. */
  readonly timeout: number;
}

/** The subscriptions of one connection. */
export class ResourceSubscriptions {
  readonly #source: string;
  readonly #counts = new Map<string, number>();
  /** The listen stream of each resource, on a 2026-07-28 server. */
  readonly #streams = new Map<string, McpSubscription>();

  /** @param source the source name, `"mcp.<server>"`, for messages */
  constructor(source: string) {
    this.#source = source;
  }

  /** One more subscription to `uri`; the first is made on the server. */
  async subscribe(
    link: UpstreamLink,
    uri: string,
    options: SubscriptionRequestOptions,
  ): Promise<void> {
    const count = this.#counts.get(uri) ?? 0;
    if (count === 0) await this.#hold(link, uri, options);
    this.#counts.set(uri, count + 1);
  }

  /** One subscription to `uri` fewer; after the last, the server is told. */
  async unsubscribe(
    link: UpstreamLink,
    uri: string,
    options: SubscriptionRequestOptions,
  ): Promise<void> {
    const count = this.#counts.get(uri) ?? 0;
    if (count > 1) {
      this.#counts.set(uri, count - 1);
      return;
    }
    this.#counts.delete(uri);
    const stream = this.#streams.get(uri);
    this.#streams.delete(uri);
    if (stream !== undefined) await stream.close();
    else if (!link.modern) {
      const { signal, timeout } = options;
      await link.client.unsubscribeResource({ uri }, { timeout, ...(signal ? { signal } : {}) });
    }
  }

  /** Makes every subscription again on `link`, a new life of the server; failures are logged. */
  renew(link: UpstreamLink, timeout: number): void {
    this.#streams.clear();
    for (const uri of this.#counts.keys()) {
      this.#hold(link, uri, { timeout }).catch((error) =>
        upstreamLog.warn(
          plain(`${this.#source}: cannot subscribe to ${uri} again: ${reasonText(error)}`),
        )
      );
    }
  }

  async #hold(link: UpstreamLink, uri: string, options: SubscriptionRequestOptions): Promise<void> {
    const { signal, timeout } = options;
    if (!link.modern) {
      await link.client.subscribeResource({ uri }, { timeout, ...(signal ? { signal } : {}) });
      return;
    }
    // A listen's own signal would end the stream: the request's is not passed.
    const stream = await link.client.listen({ resourceSubscriptions: [uri] }, { timeout });
    this.#streams.set(uri, stream);
  }
}
