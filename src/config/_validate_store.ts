/**
 * Validates the `[store]` table of a layer. `type` picks the backend;
 * `url` and `password_env` say how to reach PostgreSQL. A URL that carries
 * a password is refused without quoting it, and so is a `password` key: a
 * secret never goes in a config file.
 *
 * @module
 */

import { formatKeyPath } from "./_key_path.ts";
import { isTable, type LayerContext, put } from "./_layer_context.ts";
import { envName } from "./_validate_llm_provider.ts";
import { STORE_TYPES } from "./store_config.ts";

/** Keys of `[store]`, in the order messages list them. */
export const STORE_KEYS = ["type", "url", "password_env"] as const;

/** An example URL for messages. */
export const STORE_URL_EXAMPLE = "postgres://spillway@db.internal:5432/spillway";

/** Validates `value` as the `[store]` table and stores what is valid in `ctx.layer`. */
export function validateStore(ctx: LayerContext, value: unknown): void {
  if (!isTable(value)) {
    ctx.wrongType(["store"], value, 'a table, e.g. [store] with type = "postgres"');
    return;
  }
  const settings = ctx.layer.store;
  for (const [key, item] of Object.entries(value)) {
    const path = ["store", key];
    if (key === "type") {
      put(settings, "type", ctx.oneOf(path, item, STORE_TYPES));
    } else if (key === "url") {
      put(settings, "url", url(ctx, path, item));
    } else if (key === "password_env") {
      put(settings, "password_env", envName(ctx, path, item, "SPILLWAY_DATABASE_PASSWORD"));
    } else if (key === "password") {
      // Do not quote the value: it is the secret.
      ctx.fail(
        path,
        `${formatKeyPath(path)} is not read: a password never goes in a config file; put it in ` +
          `an environment variable and name that variable in ` +
          `${formatKeyPath(["store", "password_env"])} (or set PGPASSWORD)`,
      );
    } else {
      ctx.unknownKey(path, STORE_KEYS);
    }
  }
}

function url(ctx: LayerContext, path: string[], value: unknown) {
  const expected = `a PostgreSQL URL, e.g. "${STORE_URL_EXAMPLE}"`;
  if (typeof value !== "string") return ctx.wrongType(path, value, expected);
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  if (parsed !== undefined && parsed.password !== "") {
    // The URL is not quoted: it holds the secret.
    return ctx.fail(
      path,
      `${formatKeyPath(path)} holds a password: a password never goes in a config file; remove ` +
        `it from the URL, put it in an environment variable and name that variable in ` +
        `${formatKeyPath(["store", "password_env"])} (or set PGPASSWORD)`,
    );
  }
  if (
    parsed === undefined ||
    (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") ||
    parsed.hostname === ""
  ) {
    return ctx.notValid(path, value, expected);
  }
  return ctx.value(path, value);
}
