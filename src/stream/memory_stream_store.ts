/**
 * An in-memory stream backend for tests. It behaves like the file store
 * (events go through the same JSON lines, so what loads is what a file would
 * hold) and adds what tests need to check durability: appended-but-unflushed
 * events are kept apart from flushed ones, `durableEvents()` shows only the
 * flushed ones, `crash()` drops the rest, and appends or flushes can be made
 * to fail. Like the file store, a failed flush takes everything appended
 * since the last successful one out of the conversation.
 *
 * @module
 */

import { SpillwayError } from "../errors/spillway_error.ts";
import type { StreamEvent } from "./events.ts";
import type { ConversationStream, LoadedStream, StreamStore } from "./stream_store.ts";
import { assertConversationId } from "./assert_conversation_id.ts";
import { parseEventLine, serializeEvents } from "./_event_lines.ts";

/** A fault switch: fixed, or asked on every call. */
export type FaultSwitch = boolean | (() => boolean);

/** Fault injection for {@linkcode MemoryStreamStore}. */
export interface MemoryStreamStoreOptions {
  /** Makes `append()` throw `SpillwayError("store_failed")` and keep nothing. Default `false`. */
  readonly failAppend?: FaultSwitch;
  /**
   * Makes `flush()` throw `SpillwayError("store_failed")`, make nothing durable
   * and drop what was appended since the last flush. Default `false`.
   */
  readonly failFlush?: FaultSwitch;
}

interface Conversation {
  /** Flushed JSON lines. */
  readonly durable: string[];
  /** Appended, not yet flushed JSON lines. */
  pending: string[];
  /** Handles that appended the pending lines: told when a failed flush drops them. */
  readonly appenders: Set<{ cutOff(): void }>;
  /** Order of the last write, for `list()` (the file store uses mtime). */
  lastWrite: number;
}

interface StoreHooks {
  shouldFail(which: "append" | "flush"): boolean;
  recordWrite(conversation: Conversation): void;
  recordFlush(): void;
}

/**
 * Conversations in memory, with fault injection.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryStreamStore } from "./memory_stream_store.ts";
 * const store = new MemoryStreamStore();
 * const stream = await store.open("c1");
 * await stream.append([{ type: "tool_call_response", id: "call_1", content: "ok", is_error: false }]);
 * assert.equal(store.durableEvents("c1").length, 0);
 * await stream.flush();
 * assert.equal(store.durableEvents("c1").length, 1);
 * assert.equal(store.flushCount, 1);
 * ```
 */
export class MemoryStreamStore implements StreamStore {
  /** When (or whether) `append()` fails; may be changed at any time. */
  failAppend: FaultSwitch;
  /** When (or whether) `flush()` fails; may be changed at any time. */
  failFlush: FaultSwitch;
  readonly #conversations = new Map<string, Conversation>();
  #writes = 0;
  #flushCount = 0;
  /** What streams may do to their store, without widening the public API. */
  readonly #hooks: StoreHooks = {
    shouldFail: (which) => {
      const fault = which === "append" ? this.failAppend : this.failFlush;
      return typeof fault === "function" ? fault() : fault;
    },
    recordWrite: (conversation) => {
      conversation.lastWrite = ++this.#writes;
    },
    recordFlush: () => {
      this.#flushCount += 1;
    },
  };

  /**
   * An empty store.
   *
   * @param options fault injection; nothing fails by default
   */
  constructor(options: MemoryStreamStoreOptions = {}) {
    this.failAppend = options.failAppend ?? false;
    this.failFlush = options.failFlush ?? false;
  }

  /** How many `flush()` calls succeeded, over all conversations. */
  get flushCount(): number {
    return this.#flushCount;
  }

  /**
   * Opens (creating if needed) conversation `id`.
   *
   * @throws {TypeError} when `id` is not a valid conversation id
   */
  // deno-lint-ignore require-await -- async so that a bad id rejects like the file store's
  async open(id: string): Promise<ConversationStream> {
    assertConversationId(id);
    let conversation = this.#conversations.get(id);
    if (conversation === undefined) {
      conversation = { durable: [], pending: [], appenders: new Set(), lastWrite: ++this.#writes };
      this.#conversations.set(id, conversation);
    }
    return new MemoryConversationStream(id, conversation, this.#hooks);
  }

  /** Lists conversation ids, oldest first by last write, ties by id. */
  list(): Promise<string[]> {
    const ids = [...this.#conversations.entries()]
      .sort(([a, x], [b, y]) => x.lastWrite - y.lastWrite || (a < b ? -1 : a > b ? 1 : 0))
      .map(([id]) => id);
    return Promise.resolve(ids);
  }

  /**
   * The events of conversation `id` that a flush made durable.
   *
   * @throws {RangeError} when there is no such conversation
   */
  durableEvents(id: string): StreamEvent[] {
    return parseLines(this.#conversation(id).durable);
  }

  /** Drops every appended-but-unflushed event, as a `kill -9` would. */
  crash(): void {
    for (const conversation of this.#conversations.values()) conversation.pending = [];
  }

  #conversation(id: string): Conversation {
    const conversation = this.#conversations.get(id);
    if (conversation === undefined) {
      throw new RangeError(`no conversation ${JSON.stringify(id)} in this MemoryStreamStore`);
    }
    return conversation;
  }
}

class MemoryConversationStream implements ConversationStream {
  readonly id: string;
  readonly location: string;
  readonly #conversation: Conversation;
  readonly #hooks: StoreHooks;
  #closed = false;
  /** Another handle's failed flush dropped lines appended through this one. */
  #cutOff = false;

  constructor(id: string, conversation: Conversation, hooks: StoreHooks) {
    this.id = id;
    this.location = `memory:${id}`;
    this.#conversation = conversation;
    this.#hooks = hooks;
  }

  // deno-lint-ignore require-await -- async so that failures reject like the file store's
  async append(events: readonly StreamEvent[]): Promise<void> {
    const lines = splitLines(serializeEvents(events));
    this.#usable("append to");
    if (this.#hooks.shouldFail("append")) {
      throw this.#failed("append to", "injected append failure");
    }
    if (lines.length === 0) return;
    this.#conversation.pending.push(...lines);
    this.#conversation.appenders.add(this);
    this.#hooks.recordWrite(this.#conversation);
  }

  // deno-lint-ignore require-await -- async so that failures reject like the file store's
  async flush(): Promise<void> {
    this.#usable("flush");
    const conversation = this.#conversation;
    if (this.#cutOff) {
      this.#cutOff = false;
      throw this.#failed(
        "flush",
        "the events appended through this handle were cut off when another flush of the " +
          "conversation failed",
      );
    }
    if (this.#hooks.shouldFail("flush")) {
      conversation.pending = [];
      for (const handle of conversation.appenders) if (handle !== this) handle.cutOff();
      conversation.appenders.clear();
      throw this.#failed("flush", "injected flush failure");
    }
    conversation.durable.push(...conversation.pending);
    conversation.pending = [];
    conversation.appenders.clear();
    this.#hooks.recordFlush();
  }

  /** Called when another handle's failed flush dropped this handle's lines. */
  cutOff(): void {
    this.#cutOff = true;
  }

  // deno-lint-ignore require-await -- async for the interface; parsing is synchronous
  async load(): Promise<LoadedStream> {
    const { durable, pending } = this.#conversation;
    return { events: [...parseLines(durable), ...parseLines(pending)], warnings: [] };
  }

  // deno-lint-ignore require-await -- async for the interface
  async close(): Promise<void> {
    this.#closed = true;
    this.#conversation.appenders.delete(this);
  }

  #usable(action: string): void {
    if (this.#closed) throw this.#failed(action, "the stream is closed", "cannot");
  }

  #failed(action: string, reason: string, verb = "could not"): SpillwayError {
    return new SpillwayError("store_failed", `${verb} ${action} ${this.location}: ${reason}`, {
      path: this.location,
      conversation: this.id,
    });
  }
}

/** Splits serialized events into lines; `JSON.stringify` never emits a raw newline. */
function splitLines(text: string): string[] {
  return text === "" ? [] : text.slice(0, -1).split("\n");
}

function parseLines(lines: readonly string[]): StreamEvent[] {
  return lines.map(parseEventLine);
}
