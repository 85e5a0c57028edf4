/**
 * One PostgreSQL database as spillway's store: a pool of connections for
 * events and stored outputs, a connection of its own for the conversation
 * locks, and the schema, created or brought up to date on first use. Every
 * session runs with `synchronous_commit = on` (a commit returns once it is
 * durable), the statement and idle-transaction timeouts of
 * `postgres_limits.ts`, TCP keep-alive, `TCP_NODELAY` (as libpq sets it),
 * and an `application_name` naming
 * the process, which is how a refused writer learns who holds a
 * conversation.
 *
 * Nothing connects until the first operation. When the database cannot be
 * reached, each operation fails within {@linkcode POSTGRES_CALL_TIMEOUT_MS}
 * and the next one tries again: the pool reconnects by itself.
 *
 * @module
 */

import type net from "node:net";
import postgres from "postgres";
import { SpillwayError } from "../errors/spillway_error.ts";
import { reasonText } from "../errors/reason_text.ts";
import { socketConnector, type SocketTarget } from "./_connect_socket.ts";
import { DeadlineError, withDeadline } from "./_deadline.ts";
import { applicationName, ConversationLocks } from "./conversation_locks.ts";
import {
  CLOSE_TIMEOUT_S,
  POSTGRES_CALL_TIMEOUT_MS,
  POSTGRES_CONNECT_TIMEOUT_S,
  POSTGRES_IDLE_TRANSACTION_TIMEOUT_MS,
  POSTGRES_KEEPALIVE,
  POSTGRES_STATEMENT_TIMEOUT_MS,
} from "./postgres_limits.ts";
import { migrate } from "./postgres_schema.ts";
import type { PostgresTarget } from "./postgres_target.ts";

/** Options of {@linkcode PostgresDatabase.connect}. */
export interface PostgresDatabaseOptions {
  /** Connections in the pool (the lock connection comes on top). Default 10. */
  readonly max?: number;
}

/** A PostgreSQL database holding conversations and stored outputs. */
export class PostgresDatabase {
  /** The database as people are shown it (`postgres://user@host:port/db`, never a password). */
  readonly shown: string;
  /** The pool. Use it after {@linkcode ready}. */
  readonly sql: postgres.Sql;
  /** The conversation locks of this process. */
  readonly locks: ConversationLocks;
  #ready: Promise<void> | undefined;
  #closed: Promise<void> | undefined;

  private constructor(target: PostgresTarget, options: PostgresDatabaseOptions) {
    this.shown = target.shown;
    // `socket` is an option postgres.js reads but does not declare.
    const settings: postgres.Options<Record<string, never>> & {
      socket: (target: SocketTarget) => net.Socket;
    } = {
      ...(target.password === undefined ? {} : { password: target.password }),
      socket: socketConnector(),
      connect_timeout: POSTGRES_CONNECT_TIMEOUT_S,
      // Reconnecting after a failure waits 0.05, 0.1, 0.2 … at most 1 s (postgres.js
      // alone goes up to 20 s): a database that is back is used within a second.
      backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
      onnotice: () => {},
      connection: {
        application_name: applicationName(),
        synchronous_commit: "on",
        statement_timeout: POSTGRES_STATEMENT_TIMEOUT_MS,
        idle_in_transaction_session_timeout: POSTGRES_IDLE_TRANSACTION_TIMEOUT_MS,
        tcp_keepalives_idle: POSTGRES_KEEPALIVE.idle,
        tcp_keepalives_interval: POSTGRES_KEEPALIVE.interval,
        tcp_keepalives_count: POSTGRES_KEEPALIVE.count,
      },
    };
    const connect = (extra: postgres.Options<Record<string, never>>) =>
      target.url === undefined ? postgres({ ...settings, ...extra }) : postgres(target.url, {
        ...settings,
        ...extra,
      });
    this.sql = connect({ max: options.max ?? 10 });
    this.locks = new ConversationLocks(connect, this.shown);
  }

  /**
   * A handle on the database `target` names. Nothing connects yet.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { PostgresDatabase } from "./postgres_database.ts";
   * const db = PostgresDatabase.connect({ url: "postgres://app@db:5432/x", shown: "postgres://app@db:5432/x" });
   * assert.equal(db.shown, "postgres://app@db:5432/x");
   * await db.close();
   * ```
   */
  static connect(target: PostgresTarget, options: PostgresDatabaseOptions = {}): PostgresDatabase {
    return new PostgresDatabase(target, options);
  }

  /**
   * Connects and brings the schema up to date, once (a failure is retried by
   * the next call).
   *
   * @throws {SpillwayError} `store_failed` naming the database and why
   */
  ready(): Promise<void> {
    this.#ready ??= this.call(`reach ${this.shown}`, () => migrate(this.sql, this.shown)).catch(
      (error) => {
        this.#ready = undefined;
        throw error;
      },
    );
    return this.#ready;
  }

  /**
   * Runs `work` against the database within {@linkcode POSTGRES_CALL_TIMEOUT_MS}.
   *
   * @param what what is done, for the message (`"flush <where>"`)
   * @throws {SpillwayError} `store_failed`: `could not <what>: <why>`
   */
  async call<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await withDeadline(work(), POSTGRES_CALL_TIMEOUT_MS, this.timeoutText());
    } catch (error) {
      if (error instanceof SpillwayError) throw error;
      throw new SpillwayError(
        "store_failed",
        `could not ${what}: ${databaseErrorText(error)}`,
        { where: this.shown },
        { cause: error },
      );
    }
  }

  /** What an operation that timed out says. */
  timeoutText(): string {
    return `PostgreSQL did not answer within ${POSTGRES_CALL_TIMEOUT_MS / 1000} s`;
  }

  /** Ends every connection (the locks go with theirs). Idempotent. */
  close(): Promise<void> {
    this.#closed ??= Promise.all([
      this.sql.end({ timeout: CLOSE_TIMEOUT_S }),
      this.locks.close(),
    ]).then(() => {});
    return this.#closed;
  }
}

/**
 * One line for a database failure: the server's message (with its SQLSTATE
 * code), the socket's, or the deadline's.
 */
export function databaseErrorText(error: unknown): string {
  if (error instanceof postgres.PostgresError) return `${error.message} (SQLSTATE ${error.code})`;
  if (error instanceof DeadlineError) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  const text = reasonText(error);
  return typeof code === "string" && !text.includes(code) ? `${text} (${code})` : text;
}

/**
 * Whether a failed commit certainly left nothing behind: the server
 * answered with an error (it rolled the transaction back). A lost
 * connection or a timeout leaves the commit's fate unknown.
 */
export function certainlyRolledBack(error: unknown): boolean {
  let cause: unknown = error;
  while (cause instanceof SpillwayError && cause.cause !== undefined) cause = cause.cause;
  return cause instanceof postgres.PostgresError;
}
