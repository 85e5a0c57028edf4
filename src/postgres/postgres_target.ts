/**
 * Where a PostgreSQL store is, from `[store]` and the environment: the URL
 * (or libpq's `PG*` variables when there is none) and the password (from
 * the variable `password_env` names, else `PGPASSWORD`). What people are
 * shown of it never holds the password.
 *
 * @module
 */

import { SpillwayError } from "../errors/spillway_error.ts";
import type { StoreConfig } from "../config/store_config.ts";

/** How to reach the database. */
export interface PostgresTarget {
  /** The URL, without a password; absent: the `PG*` variables. */
  readonly url?: string;
  /** The password; absent: `PGPASSWORD`, or none. */
  readonly password?: string;
  /** The database as people are shown it: `postgres://user@host:port/database`. */
  readonly shown: string;
}

/**
 * The target `store` names, with the password read from `env`.
 *
 * @throws {SpillwayError} `config_invalid` when `password_env` names a variable that is not set
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { postgresTarget } from "./postgres_target.ts";
 * const at = (value: string) => ({ value, origin: "c.toml", at: "c.toml:2" });
 * const target = postgresTarget(
 *   { type: at("postgres") as never, url: at("postgres://app@db:5433/notes"), passwordEnv: at("PW") },
 *   { PW: "s3cret" },
 * );
 * assert.equal(target.password, "s3cret");
 * assert.equal(target.shown, "postgres://app@db:5433/notes");
 * ```
 */
export function postgresTarget(
  store: StoreConfig,
  env: Readonly<Record<string, string | undefined>>,
): PostgresTarget {
  let password: string | undefined;
  if (store.passwordEnv !== undefined) {
    const name = store.passwordEnv.value;
    password = env[name];
    if (password === undefined || password === "") {
      const problem = `${store.passwordEnv.at}: store.password_env = "${name}" names a ` +
        `variable that is not set: set ${name} to the database password, or remove ` +
        `store.password_env`;
      throw new SpillwayError("config_invalid", problem, { errors: [problem] });
    }
  }
  const url = store.url?.value;
  return {
    ...(url === undefined ? {} : { url }),
    ...(password === undefined ? {} : { password }),
    shown: shownDatabase(url, env),
  };
}

/** `postgres://user@host:port/database`, from the URL or the `PG*` variables; never a password. */
export function shownDatabase(
  url: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string {
  let user = env["PGUSER"] ?? env["PGUSERNAME"] ?? "";
  let host = env["PGHOST"] ?? "localhost";
  let port = env["PGPORT"] ?? "5432";
  let database = env["PGDATABASE"] ?? "";
  if (url !== undefined && URL.canParse(url)) {
    const parsed = new URL(url);
    user = decodeURIComponent(parsed.username) || user;
    host = parsed.hostname || host;
    port = parsed.port || port;
    database = decodeURIComponent(parsed.pathname.slice(1)) || database;
  }
  database ||= user;
  return `postgres://${user === "" ? "" : `${user}@`}${host}:${port}/${database}`;
}
