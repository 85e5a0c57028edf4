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

/** `[serve]`, defaults applied. */
export interface ServeConfig {
  /** `client_ceiling`: no result a client gets is larger. Absent: no client ceiling. */
  readonly clientCeiling?: ConfigValue<ByteSize>;
  /** `token_env`: the variable holding the bearer token; origin `"default"` when not set. */
  readonly tokenEnv: ConfigValue<string>;
  /** `allowed_origins`: web origins allowed besides loopback ones. Default: none. */
  readonly allowedOrigins: ConfigValue<readonly string[]>;
}
