/**
 * The store part of `spillway config check`: which store `[store]`
 * resolved to, where it is, and whether it can be reached (for PostgreSQL:
 * connected, and its schema brought up to date, within the bounded time of
 * every store operation). A password is never shown: only whether the
 * variable holding it is set.
 *
 * @module
 */

import type { SpillwayConfig } from "../config/spillway_config.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import { postgresTarget } from "../postgres/postgres_target.ts";
import { SCHEMA_VERSION } from "../postgres/postgres_schema.ts";
import { openStore } from "../runtime/open_store.ts";
import { formatTable } from "./_table.ts";

/** Whether the store was reached, and if not, why. */
export type StoreReach =
  | { readonly reached: true }
  | { readonly reached: false; readonly where: string; readonly reason: string };

/**
 * Tries the store `config` names (the file store needs nothing).
 *
 * @throws {SpillwayError} `config_invalid` when `store.password_env` names an unset variable
 */
export async function reachStore(
  config: SpillwayConfig,
  workspace: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<StoreReach> {
  const store = openStore(config, workspace, env);
  try {
    await store.check();
    return { reached: true };
  } catch (error) {
    if (!(error instanceof SpillwayError) || error.code !== "store_failed") throw error;
    return { reached: false, where: store.where, reason: error.message };
  } finally {
    await store.close();
  }
}

/**
 * The `Store:` section, when `[store]` is set in some layer (most
 * configurations keep the default, the workspace's files, and see nothing
 * new).
 */
export function storeSection(
  config: SpillwayConfig,
  env: Readonly<Record<string, string | undefined>>,
  shorten: (path: string) => string,
  reach: StoreReach,
): string[] {
  const { type, url, passwordEnv } = config.store();
  if (type.origin === "default") return [];
  const from = (origin: string) =>
    origin === "default" || origin.startsWith("--") ? origin : shorten(origin);
  const rows = [["SETTING", "VALUE", "FROM"]];
  if (type.value === "file") {
    rows.push([
      "store.type",
      "file (the workspace's conversations/ and blobs/)",
      from(type.origin),
    ]);
    return [`Store:\n${formatTable(rows)}`];
  }
  const shown = postgresTarget(config.store(), env).shown;
  rows.push(["store.type", "postgres", from(type.origin)]);
  rows.push([
    "store.url",
    url === undefined ? `none: the PG* variables say where (${shown})` : shown,
    url === undefined ? "default" : from(url.origin),
  ]);
  const variable = passwordEnv?.value ?? "PGPASSWORD";
  const set = (env[variable] ?? "") !== "" ? "set" : "not set";
  rows.push([
    "store.password_env",
    passwordEnv === undefined ? `none: PGPASSWORD (${set})` : `${variable} (${set})`,
    passwordEnv === undefined ? "default" : from(passwordEnv.origin),
  ]);
  rows.push([
    "reached",
    reach.reached ? `yes (schema version ${SCHEMA_VERSION})` : "no (see below)",
    "",
  ]);
  return [`Store:\n${formatTable(rows)}`];
}
