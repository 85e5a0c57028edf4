/**
 * Conversations in PostgreSQL: one row per commit in `spillway_commits`,
 * its events as one JSON array numbered from its first sequence number
 * (the view `spillway_events` shows one row per event). `append` only buffers;
 * `flush` writes everything appended since the last one in one
 * transaction (with `synchronous_commit = on`: durable when it returns).
 * A commit that failed leaves nothing of its batch: the server rolled it
 * back, or, when its fate is unknown (the connection dropped during
 * `COMMIT`, the database did not answer in time), its rows are taken out
 * by the next commit of the conversation before anything else is written
 * (under a per-conversation transaction lock, so a commit still in flight
 * is waited for), and loads in this process leave them out meanwhile.
 *
 * One writer per conversation: `open` takes the conversation's advisory
 * lock (`conversation_locks.ts`) and the last `close` of this store's
 * handles releases it. Handles of one conversation in this store share its
 * buffer, in call order, as the file store's do. A conversation opened
 * `shared` (one that several gateways write) takes its lock shared, and its
 * commits are numbered by the database, after whatever other processes
 * committed meanwhile.
 *
 * @module
 */

import type postgres from "postgres";
import type { BlobRef } from "../blobs/blob_ref.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import { assertConversationId } from "../stream/assert_conversation_id.ts";
import type { ConversationFacts, ConversationReader } from "../stream/conversation_reader.ts";
import type { StreamEvent } from "../stream/events.ts";
import { parseEventLine } from "../stream/_event_lines.ts";

import type {
  ConversationStream,
  LoadedStream,
  OpenStreamOptions,
} from "../stream/stream_store.ts";
import {
  type ConversationOps,
  PostgresConversationStream,
  type SharedConversation,
} from "./_postgres_conversation_stream.ts";
import { lockKey } from "./conversation_locks.ts";
import type { PostgresDatabase } from "./postgres_database.ts";
import { certainlyRolledBack } from "./postgres_database.ts";

/** An object with a string `type`: what the file store accepts as an event too. */
function isEvent(value: unknown): value is StreamEvent {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    typeof (value as { type?: unknown }).type === "string";
}

/** One commit's rows: the events as JSON texts, numbered from `after + 1`. */
export interface BatchRows {
  /** Each event's `type`. */
  readonly types: readonly string[];
  /** Each event's call id (tool calls only), U+0000 replaced: a text column cannot hold it. */
  readonly callIds: readonly (string | null)[];
  /** The conversation. */
  readonly conversation: string;
  /**
   * The sequence number of the last durable event (0 for none), or `null`
   * for a conversation several processes write: the database numbers the
   * commit after the last one.
   */
  readonly after: number | null;
  /** The commit's id (`spillway_commits.batch`). */
  readonly batch: string;
  /** Earlier commits whose fate is unknown: their rows are deleted first. */
  readonly uncertain: readonly string[];
  /** The events, serialized. */
  readonly events: readonly string[];
}

/** Options of {@linkcode PostgresStreamStore}. */
export interface PostgresStreamStoreOptions {
  /**
   * Commits one batch: one statement, a transaction by itself. Default:
   * {@linkcode commitBatch}. Replaceable to count or fail commits, as the
   * file store's OS calls are.
   */
  readonly commit?: (sql: postgres.Sql, rows: BatchRows) => Promise<void>;
}

/**
 * Commits `rows` with one call of `spillway_commit`: it waits for any
 * commit of the conversation still in flight, deletes the rows of the
 * `uncertain` commits, and inserts the batch, all in one transaction.
 */
export async function commitBatch(sql: postgres.Sql, rows: BatchRows): Promise<void> {
  await sql`select spillway_commit(
    ${rows.conversation}, ${rows.after}, ${rows.batch}::uuid, ${rows.uncertain as string[]}::uuid[],
    ${rows.types as string[]}::text[], ${rows.callIds as string[]}::text[],
    ${eventsArray(rows.events)}::text, ${lockKey(`commit ${rows.conversation}`)}::bigint
  )`;
}

/** The serialized events as one JSON array (each is a JSON object already). */
export function eventsArray(events: readonly string[]): string {
  return `[${events.join(",")}]`;
}

/**
 * Conversations in one PostgreSQL database.
 *
 * @example
 * ```ts ignore
 * const db = PostgresDatabase.connect(postgresTarget(config.store(), Deno.env.toObject()));
 * const store = new PostgresStreamStore(db);
 * const stream = await store.open("c1");
 * await stream.append([{ type: "turn_start", turn_id: "c1/1", prompt: "hi", at: "2026-12-01T00:00:00Z" }]);
 * await stream.flush(); // one transaction, durable
 * await stream.close();
 * await db.close();
 * ```
 */
export class PostgresStreamStore implements ConversationReader, ConversationOps {
  readonly #db: PostgresDatabase;
  readonly #commit: (sql: postgres.Sql, rows: BatchRows) => Promise<void>;
  readonly #queues = new Map<string, Promise<void>>();
  readonly #shared = new Map<string, SharedConversation>();

  /**
   * @param db the database (its schema is brought up to date on first use)
   * @param options see {@linkcode PostgresStreamStoreOptions}
   */
  constructor(db: PostgresDatabase, options: PostgresStreamStoreOptions = {}) {
    this.#db = db;
    this.#commit = options.commit ?? commitBatch;
  }

  /** The database, as people are shown it. */
  get where(): string {
    return this.#db.shown;
  }

  /** Where conversation `id` is shown to be. */
  location(id: string): string {
    return `${this.#db.shown}/conversations/${id}`;
  }

  /**
   * Opens (creating if needed) conversation `id`, taking its writer lock
   * (shared with other processes' shared writers when `options.shared`).
   *
   * @throws {TypeError} when `id` is not a valid conversation id
   * @throws {SpillwayError} `conversation_locked` when another process has it open
   *   (for one writer; or shared, for an exclusive open); `store_failed` when the
   *   database cannot be reached
   */
  async open(id: string, options: OpenStreamOptions = {}): Promise<ConversationStream> {
    assertConversationId(id);
    await this.#db.ready();
    const several = options.shared ?? false;
    return await this.#serial(id, async () => {
      let shared = this.#shared.get(id);
      if (shared === undefined) {
        const lock = await this.#db.call(
          `open ${this.location(id)}`,
          () => this.#db.locks.take(id, { shared: several }),
        );
        try {
          const durable = await this.#db.call(`open ${this.location(id)}`, async () => {
            await this.#db.sql`insert into spillway_conversations (id) values (${id})
              on conflict (id) do nothing`;
            const [row] = await this.#db.sql<{ last: number }[]>`
              select coalesce(max(first_seq + cardinality(types) - 1), 0)::int as last
              from spillway_commits where conversation_id = ${id}`;
            return row?.last ?? 0;
          });
          shared = {
            several,
            durable,
            pending: [],
            types: [],
            callIds: [],
            appenders: new Set(),
            uncertain: [],
            handles: 0,
            lock,
          };
        } catch (error) {
          await lock.release();
          throw error;
        }
        this.#shared.set(id, shared);
      }
      shared.handles++;
      return new PostgresConversationStream(this, id, shared);
    });
  }

  /**
   * Lists conversation ids, oldest first by their last commit, ties by id.
   *
   * @throws {SpillwayError} `store_failed` when the database cannot be reached
   */
  async list(): Promise<string[]> {
    await this.#db.ready();
    const rows = await this.#db.call(
      `list the conversations of ${this.#db.shown}`,
      () =>
        this.#db.sql<{ id: string }[]>`
        select id from spillway_conversations order by updated_at, id`,
    );
    return rows.map((row) => row.id);
  }

  /**
   * Reads conversation `id`'s committed events without opening it for
   * writing (no lock).
   *
   * @throws {SpillwayError} `store_failed` when there is no such conversation or it cannot be read
   */
  async read(id: string): Promise<LoadedStream> {
    assertConversationId(id);
    await this.#db.ready();
    const shared = this.#shared.get(id);
    const events = await this.#events(id, shared);
    if (events.length === 0 && !(await this.list()).includes(id)) {
      throw new SpillwayError("store_failed", `no conversation ${id} in ${this.#db.shown}`, {
        conversation: id,
      });
    }
    return { events, warnings: [] };
  }

  /** Conversation `id`'s place and its size as JSON lines. */
  async describe(id: string): Promise<ConversationFacts> {
    assertConversationId(id);
    await this.#db.ready();
    const [row] = await this.#db.call(
      `read ${this.location(id)}`,
      () =>
        this.#db.sql<{ bytes: string }[]>`
        select coalesce(sum(octet_length(events) - 1), 0)::text as bytes
        from spillway_commits where conversation_id = ${id}`,
    );
    return { location: this.location(id), bytes: Number(row?.bytes ?? 0) };
  }

  /** Adds every blob reference any event mentions to `into` (found by the server). */
  async blobRefs(into: Set<BlobRef>): Promise<void> {
    await this.#db.ready();
    const rows = await this.#db.call(
      `search the conversations of ${this.#db.shown}`,
      () =>
        this.#db.sql<{ ref: BlobRef }[]>`
        select distinct m[1] as ref
        from spillway_commits, regexp_matches(events, '(sha256:[0-9a-f]{64})', 'g') as m`,
    );
    for (const row of rows) into.add(row.ref);
  }

  /** The committed events of `id`, without those of this process's commits whose fate is unknown. */
  async #events(id: string, shared: SharedConversation | undefined): Promise<StreamEvent[]> {
    const uncertain = shared?.uncertain ?? [];
    const rows = await this.#db.call(
      `read ${this.location(id)}`,
      () =>
        this.#db.sql<{ events: string }[]>`
          select events from spillway_commits
          where conversation_id = ${id} and not (batch = any (${uncertain}::uuid[]))
          order by first_seq`,
    );
    const events: StreamEvent[] = [];
    for (const [i, row] of rows.entries()) {
      const batch: unknown = JSON.parse(row.events);
      if (!Array.isArray(batch)) throw this.#notEvents(id, i, "not a JSON array");
      for (const event of batch) {
        if (!isEvent(event)) throw this.#notEvents(id, i, "an element is not an event");
        events.push(event);
      }
    }
    return events;
  }

  #notEvents(id: string, commit: number, why: string): SpillwayError {
    return new SpillwayError(
      "store_failed",
      `commit ${commit + 1} of ${this.location(id)} is not a list of events: ${why}`,
      { conversation: id },
    );
  }

  /** For the handles: loads `id`'s durable events and the pending ones. */
  load(id: string, shared: SharedConversation): Promise<LoadedStream> {
    return this.#serial(id, async () => {
      const events = await this.#events(id, shared);
      for (const line of shared.pending) events.push(parseEventLine(line));
      return { events, warnings: [] };
    });
  }

  /**
   * For the handles: commits what is pending (and takes out commits of
   * unknown fate). Events appended while it runs wait for the next commit.
   * A failure drops the batch and tells the other handles that appended to
   * it (`by` learns it from the error).
   */
  commit(id: string, shared: SharedConversation, by: { cutOff(): void }): Promise<void> {
    return this.#serial(id, async () => {
      if (shared.pending.length === 0 && shared.uncertain.length === 0) return;
      const batch = crypto.randomUUID();
      const { pending: events, types, callIds, appenders, uncertain } = shared;
      shared.pending = [];
      shared.types = [];
      shared.callIds = [];
      shared.appenders = new Set();
      try {
        await this.#db.call(`flush ${this.location(id)}`, async () => {
          await this.#db.locks.ensure(id);
          await this.#commit(this.#db.sql, {
            conversation: id,
            after: shared.several ? null : shared.durable,
            batch,
            uncertain,
            types,
            callIds,
            events,
          });
        });
      } catch (error) {
        for (const handle of appenders) if (handle !== by) handle.cutOff();
        if (!certainlyRolledBack(error)) shared.uncertain = [...uncertain, batch];
        throw error;
      }
      shared.durable += events.length;
      shared.uncertain = [];
    });
  }

  /** For the handles: one handle of `id` closed; the last releases the lock. */
  closed(id: string, shared: SharedConversation): Promise<void> {
    return this.#serial(id, async () => {
      shared.handles--;
      if (shared.handles > 0) return;
      this.#shared.delete(id);
      await shared.lock.release();
    });
  }

  /** Runs `work` after every earlier operation on conversation `id` has settled. */
  #serial<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(id) ?? Promise.resolve();
    const result = previous.then(work);
    const tail = result.then(() => {}, () => {});
    this.#queues.set(id, tail);
    void tail.then(() => {
      if (this.#queues.get(id) === tail) this.#queues.delete(id);
    });
    return result;
  }
}
