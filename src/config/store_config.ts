/**
 * The `[store]` settings: where conversations and stored outputs live.
 * `type = "file"` (the default) keeps them under the workspace;
 * `type = "postgres"` keeps them in one PostgreSQL database that several
 * machines share. The password is never in a file: `password_env` names
 * the variable holding it, and libpq's `PG*` variables work as well.
 *
 * @module
 */

import type { ConfigValue } from "./config_value.ts";

/** The kinds of store. */
export const STORE_TYPES = ["file", "postgres"] as const;

/** A kind of store. */
export type StoreType = typeof STORE_TYPES[number];

/** `[store]`, defaults applied. */
export interface StoreConfig {
  /** `type`: `"file"` (default) or `"postgres"`. */
  readonly type: ConfigValue<StoreType>;
  /**
   * `url` (postgres): `postgres://USER@HOST:PORT/DATABASE`, without a
   * password. Absent: the `PG*` variables (`PGHOST`, `PGPORT`, `PGDATABASE`,
   * `PGUSER`) say where.
   */
  readonly url?: ConfigValue<string>;
  /** `password_env` (postgres): the variable holding the password. Absent: `PGPASSWORD`. */
  readonly passwordEnv?: ConfigValue<string>;
}
