/**
 * The store interface every stream backend implements (file, memory, later
 * Deno KV), and which the contract suite in `src/testing/stream_store_contract.ts` checks.
 *
 * @module
 */

import type { StreamEvent } from "./events.ts";

/** What loading a conversation found. */
export interface LoadedStream {
  /** Every complete event, in append order. */
  readonly events: readonly StreamEvent[];
  /** Warnings, e.g. a torn last line that was skipped. */
  readonly warnings: readonly string[];
}

/** One conversation's append-only event log. */
export interface ConversationStream {
  /** The conversation id. */
  readonly id: string;
  /** Where it lives, for people (a path, a KV prefix). */
  readonly location: string;
  /** Appends events (not yet durable). Throws `SpillwayError("store_failed")`. */
  append(events: readonly StreamEvent[]): Promise<void>;
  /**
   * Makes every appended event durable; resolves only after fsync. When it
   * fails (`SpillwayError("store_failed")`), every event appended since the
   * last successful flush, through any handle of the conversation, is taken
   * out of it: no later load returns them, and appends go on after the
   * durable events.
   */
  flush(): Promise<void>;
  /** Reads the events back (complete ones only). */
  load(): Promise<LoadedStream>;
  /** Releases file handles. Idempotent. */
  close(): Promise<void>;
}

/** Options of {@linkcode StreamStore.open}. */
export interface OpenStreamOptions {
  /**
   * The conversation is written by several processes at once (a 2026-07-28
   * conversation that every gateway its requests reach records): their
   * commits are appended one after the other, none lost or interleaved
   * within, and no single writer excludes the others (an exclusive one, such
   * as `conversation compact`, still excludes them all). Only a store shared
   * by processes honours it (PostgreSQL); a store of one machine's files
   * opens the conversation for one writer as usual. Default: false.
   */
  readonly shared?: boolean;
}

/** A place conversations live. */
export interface StreamStore {
  /** Opens (creating if needed) the conversation `id`; see {@linkcode OpenStreamOptions}. */
  open(id: string, options?: OpenStreamOptions): Promise<ConversationStream>;
  /** Lists the conversation ids, oldest first. */
  list(): Promise<string[]>;
}
