/**
 * One writer per conversation across processes and machines: a writer of a
 * PostgreSQL conversation (a `query` turn, a gateway session, `conversation
 * compact`) holds a session-level advisory lock on the conversation while
 * its stream is open, as a file writer holds its `writer.lock`. A second
 * writer anywhere is refused with a clear error naming the holder. The
 * locks of one process live on one connection of their own, so a process
 * that dies (even by SIGKILL) loses its connection and the server frees its
 * locks; a machine that vanishes is noticed by TCP keep-alive.

A 2026-07-28 conversation has no session: each of its requests may reach
another gateway, so every gateway it reaches writes it. Those writers take
its lock shared: they exclude any exclusive writer (a 2025 session, a
`query` turn, `conversation compact`) and none of each other, and their
commits are numbered by the database (`spillway_commit` with no sequence
number), one after the other.
 *
 * Locks are a courtesy to people, not what keeps a conversation whole: a
 * commit inserts events under the conversation's next sequence numbers,
 * so two writers that both believed they held it could never interleave
 * (the second commit fails on the primary key). When the lock connection
 * drops (the server restarted), every lock is lost with it; each is taken
 * again before the next commit of its conversation ({@linkcode ConversationLocks.ensure}),
 * and a conversation another process took meanwhile refuses that commit.
 *
 * @module
 */

import { hostname } from "node:os";
import { createHash } from "node:crypto";
import type postgres from "postgres";
import { SpillwayError } from "../errors/spillway_error.ts";
import { withDeadline } from "./_deadline.ts";
import { CLOSE_TIMEOUT_S, POSTGRES_CALL_TIMEOUT_MS } from "./postgres_limits.ts";
import { processId } from "../platform/processes.ts";

/** A held lock; release it once. */
export interface HeldLock {
  /** Drops this holder's share; the lock is released with the last one. */
  release(): Promise<void>;
}

interface Entry {
  /** Whether it is held shared (by writers of a conversation several processes write). */
  readonly shared: boolean;
  /** Holders in this process. */
  holders: number;
  /** The lock connection's generation the lock was taken on. */
  epoch: number;
  /** The lock being taken (or taken again). */
  taking: Promise<void> | undefined;
}

/** The name a process's connections carry (`application_name`): who holds a lock. */
export function applicationName(): string {
  let host = "";
  try {
    host = hostname();
  } catch {
    // --allow-sys missing: the pid alone names the holder.
  }
  return `spillway pid ${processId()}${host === "" ? "" : ` on ${host}`}`.slice(0, 63);
}

/** The advisory lock key of conversation `id`: 63 bits of the SHA-256 of its name. */
export function lockKey(id: string): string {
  const digest = createHash("sha256").update(`spillway conversation ${id}`).digest();
  return String(digest.readBigUInt64BE(0) >> 1n);
}

/** The advisory locks of one process on one database. */
export class ConversationLocks {
  readonly #sql: postgres.Sql;
  readonly #where: string;
  readonly #entries = new Map<string, Entry>();
  /** Counts the lock connection's closes: a lock taken in an older epoch is gone. */
  #epoch = 0;

  /**
   * @param connect makes a pool with these options added to the database's
   *   own (the lock connection is a pool of one of its own)
   * @param where the database as people are shown it, for messages
   */
  constructor(
    connect: (options: postgres.Options<Record<string, never>>) => postgres.Sql,
    where: string,
  ) {
    this.#where = where;
    this.#sql = connect({
      max: 1,
      // The connection must live as long as its locks: no idle or age limit.
      idle_timeout: 0,
      max_lifetime: null,
      onclose: () => {
        this.#epoch++;
      },
    });
  }

  /**
   * Takes the lock of conversation `id` (shared by this process's holders):
   * exclusive, or with `shared` shared with other processes' shared holders.
   *
   * @param options `shared`: take it shared (default: exclusive)
   * @throws {SpillwayError} `conversation_locked` when another process holds it
   *   (in a mode that excludes this one), or this one in the other mode;
   *   the database's own errors when it cannot be reached
   */
  async take(id: string, options: { readonly shared?: boolean } = {}): Promise<HeldLock> {
    const shared = options.shared ?? false;
    let entry = this.#entries.get(id);
    if (entry === undefined) {
      entry = { shared, holders: 0, epoch: -1, taking: undefined };
      this.#entries.set(id, entry);
    } else if (entry.shared !== shared) {
      throw new SpillwayError(
        "conversation_locked",
        `conversation ${id} is open in this process ${
          entry.shared ? "shared with other gateways" : "for one writer"
        }: nothing was changed; try again when it has been closed`,
        { conversation: id },
      );
    }
    entry.holders++;
    const mine = entry;
    try {
      await this.#hold(id, mine);
    } catch (error) {
      await this.#drop(id, mine);
      throw error;
    }
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        await this.#drop(id, mine);
      },
    };
  }

  /**
   * Makes sure conversation `id`'s lock is still held, taking it again when
   * the lock connection was lost since.
   *
   * @throws {SpillwayError} `conversation_locked` when another process took it meanwhile
   */
  async ensure(id: string): Promise<void> {
    const entry = this.#entries.get(id);
    if (entry === undefined) throw new TypeError(`conversation ${id} is not locked here`);
    await this.#hold(id, entry);
  }

  /** Closes the lock connection: every lock of this process is released. */
  async close(): Promise<void> {
    this.#entries.clear();
    await this.#sql.end({ timeout: CLOSE_TIMEOUT_S });
  }

  async #hold(id: string, entry: Entry): Promise<void> {
    while (entry.epoch !== this.#epoch) {
      entry.taking ??= this.#try(id, entry).finally(() => {
        entry.taking = undefined;
      });
      await entry.taking;
    }
  }

  async #try(id: string, entry: Entry): Promise<void> {
    const epoch = this.#epoch;
    const key = lockKey(id);
    const [row] = await withDeadline(
      entry.shared
        ? this.#sql<{ locked: boolean }[]>`
          select pg_try_advisory_lock_shared(${key}::bigint) as locked`
        : this.#sql<{ locked: boolean }[]>`select pg_try_advisory_lock(${key}::bigint) as locked`,
      POSTGRES_CALL_TIMEOUT_MS,
      `${this.#where} did not answer within ${POSTGRES_CALL_TIMEOUT_MS / 1000} s`,
    );
    if (row?.locked !== true) throw await this.#lockedError(id, key, entry.epoch >= 0);
    // Taken on a connection that closed meanwhile: the loop takes it again.
    entry.epoch = epoch;
  }

  async #drop(id: string, entry: Entry): Promise<void> {
    entry.holders--;
    if (entry.holders > 0) return;
    if (this.#entries.get(id) === entry) this.#entries.delete(id);
    if (entry.epoch !== this.#epoch) return;
    // A failure here leaves the lock to the connection's end (or the process's).
    const unlocked = entry.shared
      ? this.#sql`select pg_advisory_unlock_shared(${lockKey(id)}::bigint)`
      : this.#sql`select pg_advisory_unlock(${lockKey(id)}::bigint)`;
    await unlocked.catch(() => {});
  }

  async #lockedError(id: string, key: string, lost: boolean): Promise<SpillwayError> {
    const holder = await this.#holder(key).catch(() => undefined);
    const match = holder === undefined
      ? null
      : /^spillway pid (\d+)(?: on (.+))?$/.exec(holder.name ?? "");
    const since = holder?.since === undefined || holder.since === null
      ? ""
      : `, since ${new Date(holder.since).toISOString()}`;
    const who = match === null
      ? `another process${since === "" ? "" : ` (${since.slice(2)})`}`
      : `another process (pid ${match[1]}${
        match[2] === undefined ? "" : ` on ${match[2]}`
      }${since})`;
    const what = lost
      ? `conversation ${id} was taken over by ${who} while this process had lost its ` +
        `connection to ${this.#where}: nothing more is written to it here`
      : `conversation ${id} is open in ${who}: nothing was changed; ` +
        `try again when that process has finished`;
    return new SpillwayError("conversation_locked", what, {
      conversation: id,
      ...(match === null ? {} : { pid: Number(match[1]) }),
    });
  }

  async #holder(
    key: string,
  ): Promise<{ name: string | null; since: Date | null } | undefined> {
    const [row] = await this.#sql<{ name: string | null; since: Date | null }[]>`
      select a.application_name as name, a.backend_start as since
      from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.granted and l.objsubid = 1
        and ((l.classid::bigint << 32) | l.objid::bigint) = ${key}::bigint
      limit 1`;
    return row;
  }
}
