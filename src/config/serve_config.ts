/**
 * The `[serve]` settings of `spillway serve`, merged across layers, each
 * with where it came from.
 *
 * @module
 */

import type { ByteSize } from "../size/byte_size.ts";
import type { ConfigValue } from "./config_value.ts";

/** The environment variable holding the HTTP bearer token unless `serve.token_env` names another. */
export const DEFAULT_SERVE_TOKEN_ENV = "SPILLWAY_SERVE_TOKEN";

/**
 * The largest body a client may POST to `spillway serve --http` unless
 * `serve.max_request_size` says otherwise: 4 MiB, the MCP SDK's own limit
 * for requests of a session, now applied to every request.
 */
export const DEFAULT_MAX_REQUEST_SIZE = "4MB";

/** The smallest `serve.max_request_size`: an `initialize` request alone is about 300 bytes. */
export const MIN_MAX_REQUEST_SIZE_BYTES = 1024;

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
  /** `token_env`: the variable holding the bearer token; origin `"default"` when not set. */
  readonly tokenEnv: ConfigValue<string>;
  /** `allowed_origins`: web origins allowed besides loopback ones. Default: none. */
  readonly allowedOrigins: ConfigValue<readonly string[]>;
  /** `max_request_size`: the largest POST body; default {@linkcode DEFAULT_MAX_REQUEST_SIZE}. */
  readonly maxRequestSize: ConfigValue<ByteSize>;
}
