/**
 * The time limits of every conversation with PostgreSQL. A call whose
 * result cannot be recorded (the database is down, unreachable, or stuck)
 * must fail within a bounded time with an error saying so, never hang: each
 * store operation waits at most {@linkcode POSTGRES_CALL_TIMEOUT_MS} for
 * the database, whatever the network does; the server itself stops a
 * statement after {@linkcode POSTGRES_STATEMENT_TIMEOUT_MS} and rolls back
 * a transaction whose client went silent after
 * {@linkcode POSTGRES_IDLE_TRANSACTION_TIMEOUT_MS}, so a commit that never
 * arrived cannot land later.
 *
 * @module
 */

/** How long connecting may take (TCP, TLS, authentication), in seconds: 5. */
export const POSTGRES_CONNECT_TIMEOUT_S = 5;

/** The server's `statement_timeout` for spillway's sessions: 10 s (lock waits included). */
export const POSTGRES_STATEMENT_TIMEOUT_MS = 10_000;

/**
 * The server's `idle_in_transaction_session_timeout`: 30 s. A transaction
 * whose client stopped talking before its `COMMIT` is rolled back then.
 */
export const POSTGRES_IDLE_TRANSACTION_TIMEOUT_MS = 30_000;

/**
 * The longest a store operation (an open, a load, a flush, one chunk of a
 * stored output) waits for the database before it fails: 20 s, the connect
 * timeout plus the statement timeout, plus slack.
 */
export const POSTGRES_CALL_TIMEOUT_MS = 20_000;

/**
 * TCP keep-alive of spillway's sessions (`tcp_keepalives_*`): the server
 * notices a holder that vanished without closing its connection (a machine
 * that lost power) after about 25 s, and frees its conversation locks.
 */
export const POSTGRES_KEEPALIVE = { idle: 10, interval: 5, count: 3 } as const;

/**
 * How long closing waits for connections to end by themselves before it
 * drops them, in seconds: 1. (A connection that broke inside a transaction
 * may never report its end.)
 */
export const CLOSE_TIMEOUT_S = 1;
