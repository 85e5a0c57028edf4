/**
 * Private to the PostgreSQL stream store: one handle on a conversation, and
 * what every handle of that conversation in one store shares (its buffer
 * of appended events, its durable end, its lock). The store does the work;
 * a handle checks it is open and says who asks.
 *
 * @module
 */

import { SpillwayError } from "../errors/spillway_error.ts";
import type { StreamEvent } from "../stream/events.ts";
import type { ConversationStream, LoadedStream } from "../stream/stream_store.ts";
import type { HeldLock } from "./conversation_locks.ts";

/** What the handles of one conversation share. */
export interface SharedConversation {
  /** Whether several processes write it (its lock shared, its commits numbered by the database). */
  readonly several: boolean;
  /** The last durable sequence number (of this process's commits, when several write it). */
  durable: number;
  /** Appended, not yet committed events, serialized. */
  pending: string[];
  /** Their types and call ids. */
  types: string[];
  callIds: (string | null)[];
  /** Handles holding pending events: told when a failed commit drops them. */
  appenders: Set<{ cutOff(): void }>;
  /** Commits whose fate is unknown: their rows are deleted by the next commit. */
  uncertain: string[];
  handles: number;
  readonly lock: HeldLock;
}

/** What a handle asks of its store. */
export interface ConversationOps {
  /** Where conversation `id` is shown to be. */
  location(id: string): string;
  /** The durable and the pending events. */
  load(id: string, shared: SharedConversation): Promise<LoadedStream>;
  /** Commits what is pending; `by` is the handle that asked. */
  commit(id: string, shared: SharedConversation, by: { cutOff(): void }): Promise<void>;
  /** A handle closed. */
  closed(id: string, shared: SharedConversation): Promise<void>;
  /** The committed events, without a handle. */
  read(id: string): Promise<LoadedStream>;
}

/** One open handle on a PostgreSQL conversation. */
export class PostgresConversationStream implements ConversationStream {
  readonly id: string;
  readonly location: string;
  readonly #store: ConversationOps;
  readonly #shared: SharedConversation;
  #open = true;
  /** Another handle's failed commit dropped events appended through this one. */
  #cutOff = false;

  constructor(store: ConversationOps, id: string, shared: SharedConversation) {
    this.id = id;
    this.location = store.location(id);
    this.#store = store;
    this.#shared = shared;
  }

  // deno-lint-ignore require-await -- async so that failures reject like the file store's
  async append(events: readonly StreamEvent[]): Promise<void> {
    this.#usable("append to");
    if (events.length === 0) return;
    const shared = this.#shared;
    for (const event of events) {
      shared.pending.push(JSON.stringify(event));
      shared.types.push(event.type);
      shared.callIds.push(
        event.type === "tool_call_request" || event.type === "tool_call_response"
          ? event.id.replaceAll("\u0000", "\ufffd")
          : null,
      );
    }
    this.#shared.appenders.add(this);
  }

  async flush(): Promise<void> {
    this.#usable("flush");
    if (this.#cutOff) {
      this.#cutOff = false;
      throw new SpillwayError(
        "store_failed",
        `could not flush ${this.location}: the events appended through this handle were cut ` +
          `off when another flush of the conversation failed`,
        { conversation: this.id },
      );
    }
    await this.#store.commit(this.id, this.#shared, this);
  }

  load(): Promise<LoadedStream> {
    if (!this.#open) return this.#store.read(this.id);
    return this.#store.load(this.id, this.#shared);
  }

  async close(): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    this.#shared.appenders.delete(this);
    await this.#store.closed(this.id, this.#shared);
  }

  /** Called when another handle's failed commit dropped this handle's events. */
  cutOff(): void {
    this.#cutOff = true;
  }

  #usable(action: string): void {
    if (!this.#open) {
      throw new SpillwayError(
        "store_failed",
        `cannot ${action} ${this.location}: the stream is closed`,
        { conversation: this.id },
      );
    }
  }
}
