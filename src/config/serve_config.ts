/**
 * The `[serve]` settings of `spillway serve`, merged across layers, each
 * with where it came from.
 *
 * @module
 */

import type { ByteSize } from "../size/byte_size.ts";
import type { ConfigValue } from "./config_value.ts";
import type { Duration } from "./duration.ts";

/** The environment variable holding the HTTP bearer token unless `serve.token_env` names another. */
export const DEFAULT_SERVE_TOKEN_ENV = "SPILLWAY_SERVE_TOKEN";

/**
 * The name of the client whose token is `serve.token_env`'s (or the one
 * `serve` generates): every client of a gateway without `[serve.tokens]`,
 * and the only client of `serve --stdio`.
 */
export const DEFAULT_CLIENT = "default";

/**
 * What a client's name in `[serve.tokens.NAME]` may be: 1–64 characters
 * from `A–Z a–z 0–9 _ -`. It names the client in conversations, notices and
 * folders (`<workspace>/owners/NAME`), so it must be a safe file name.
 */
export const CLIENT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The largest body a client may POST to `spillway serve --http` unless
 * `serve.max_request_size` says otherwise: 4 MiB, the MCP SDK's own limit
 * for requests of a session, now applied to every request.
 */
export const DEFAULT_MAX_REQUEST_SIZE = "4MB";

/** The smallest `serve.max_request_size`: an `initialize` request alone is about 300 bytes. */
export const MIN_MAX_REQUEST_SIZE_BYTES = 1024;

/**
 * How long an HTTP session may go without a request before `spillway serve`
 * closes it unless `serve.session_idle_timeout` says otherwise: 30 minutes.
 */
export const DEFAULT_SESSION_IDLE_TIMEOUT = "30m";

/** The shortest `serve.session_idle_timeout`: 1 s (a client needs a moment between requests). */
export const MIN_SESSION_IDLE_TIMEOUT_MS = 1_000;

/**
 * How many HTTP sessions `spillway serve` keeps at once unless
 * `serve.max_sessions` says otherwise: 1,000. A session that made a call
 * costs about 90 KB while it lasts.
 */
export const DEFAULT_MAX_SESSIONS = 1_000;

/**
 * How long a 2026-07-28 call that asked its client for input waits for the
 * client to call again unless `serve.input_timeout` says otherwise: 5
 * minutes (a person may be answering an elicitation). Then it is cancelled.
 */
export const DEFAULT_INPUT_TIMEOUT = "5m";

/** The shortest `serve.input_timeout`: 1 s. */
export const MIN_INPUT_TIMEOUT_MS = 1_000;

/**
 * How many calls may wait for their clients' input at once unless
 * `serve.max_input_waits` says otherwise: 100. A call past it that asks is
 * failed, saying so.
 */
export const DEFAULT_MAX_INPUT_WAITS = 100;

/**
 * The most one `input_required` round may hand a client (its requests'
 * params, compact JSON) unless `serve.max_input_size` says otherwise: 1 MiB.
 */
export const DEFAULT_MAX_INPUT_SIZE = "1MB";

/** `[serve]`, defaults applied. */
export interface ServeConfig {
  /** `client_ceiling`: no result a client gets is larger. Absent: no client ceiling. */
  readonly clientCeiling?: ConfigValue<ByteSize>;
  /**
   * `client_ceilings`: the ceiling of one client's sessions, by the name it
   * announces in `initialize` (`clientInfo.name`); each adds to or overrides
   * the ceilings spillway knows. Default: none.
   */
  readonly clientCeilings: ReadonlyMap<string, ConfigValue<ByteSize>>;
  /**
   * `token_env`: the variable holding the bearer token of the default client
   * ({@linkcode DEFAULT_CLIENT}); origin `"default"` when not set.
   */
  readonly tokenEnv: ConfigValue<string>;
  /**
   * `[serve.tokens.NAME] env`: the variable holding client NAME's own
   * bearer token, by client name, in the order first defined. Default: none
   * (every client is the default one).
   */
  readonly tokens: ReadonlyMap<string, ConfigValue<string>>;
  /** `allowed_origins`: web origins allowed besides loopback ones. Default: none. */
  readonly allowedOrigins: ConfigValue<readonly string[]>;
  /** `max_request_size`: the largest POST body; default {@linkcode DEFAULT_MAX_REQUEST_SIZE}. */
  readonly maxRequestSize: ConfigValue<ByteSize>;
  /**
   * `session_idle_timeout`: how long an HTTP session may go without a
   * request before it is closed; default {@linkcode DEFAULT_SESSION_IDLE_TIMEOUT}.
   */
  readonly sessionIdleTimeout: ConfigValue<Duration>;
  /** `max_sessions`: how many HTTP sessions at once; default {@linkcode DEFAULT_MAX_SESSIONS}. */
  readonly maxSessions: ConfigValue<number>;
  /** `input_timeout`: how long a call waits for its client's input; default {@linkcode DEFAULT_INPUT_TIMEOUT}. */
  readonly inputTimeout: ConfigValue<Duration>;
  /** `max_input_waits`: calls waiting for input at once; default {@linkcode DEFAULT_MAX_INPUT_WAITS}. */
  readonly maxInputWaits: ConfigValue<number>;
  /** `max_input_size`: the largest round of input requests; default {@linkcode DEFAULT_MAX_INPUT_SIZE}. */
  readonly maxInputSize: ConfigValue<ByteSize>;
  /**
   * `record_input_contents`: whether what a call asked its client (and the
   * answer) is recorded whole, not only by size; default `false` (an
   * elicitation's answer is a person's words).
   */
  readonly recordInputContents: ConfigValue<boolean>;
}
