/**
 * Validates one `[providers.mcp.<name>]` table of a layer. Whether the keys
 * fit together (`stdio` needs `command`, `http` needs `url`) is checked only
 * after all layers merge, since a file may set `type` and a flag the rest.
 *
 * @module
 */

import type { ConfigValue } from "./config_value.ts";
import { formatKeyPath } from "./_key_path.ts";
import { isStringArray, isTable, type LayerContext, put } from "./_layer_context.ts";
import type { ProviderSettings } from "./_layer.ts";
import { validatePassEnv } from "./_validate_pass_env.ts";
import { MCP_PROTOCOLS } from "./mcp_provider_config.ts";

/** Keys of a provider table, in the order messages list them. */
export const PROVIDER_KEYS = [
  "type",
  "command",
  "arguments",
  "environment",
  "pass_env",
  "url",
  "headers",
  "startup_timeout",
  "protocol",
] as const;

/** Provider types, in the order messages list them. */
export const PROVIDER_TYPES = ["stdio", "http"] as const;

/** An example `startup_timeout` for messages, in seconds. */
const STARTUP_TIMEOUT_EXAMPLE = 60;

/** An example endpoint for messages. */
export const URL_EXAMPLE = '"http://127.0.0.1:8080/mcp"';

/** Validates `table` as provider `name` and stores what is valid in `ctx.layer`. */
export function validateProvider(ctx: LayerContext, name: string, table: unknown): void {
  const base = ["providers", "mcp", name];
  if (!isTable(table)) {
    ctx.wrongType(
      base,
      table,
      `a table with ${PROVIDER_KEYS.slice(0, -1).join(", ")} or ${PROVIDER_KEYS.at(-1)}`,
    );
    return;
  }
  if (name.includes(".")) {
    ctx.fail(
      base,
      `MCP server name "${name}" cannot contain "." ` +
        '(source = "mcp.<server>.<tool>" could not tell the server from the tool)',
    );
    return;
  }
  const settings: ProviderSettings = ctx.layer.providers.get(name) ??
    { environment: new Map(), headers: new Map(), at: ctx.at(base) };
  ctx.layer.providers.set(name, settings);
  for (const [key, value] of Object.entries(table)) {
    const path = [...base, key];
    switch (key) {
      case "type":
        put(settings, "type", ctx.oneOf(path, value, PROVIDER_TYPES));
        break;
      case "command":
        put(settings, "command", providerCommand(ctx, path, value));
        break;
      case "arguments":
        put(
          settings,
          "arguments",
          isStringArray(value)
            ? ctx.value(path, Object.freeze([...value]))
            : ctx.wrongType(path, value, 'an array of strings, e.g. ["stdio"]'),
        );
        break;
      case "environment":
        stringTable(ctx, path, value, settings.environment, {
          example: '{ GITHUB_TOKEN = "…" }',
        });
        break;
      case "pass_env":
        put(settings, "pass_env", validatePassEnv(ctx, path, value));
        break;
      case "url":
        put(settings, "url", url(ctx, path, value));
        break;
      case "headers":
        stringTable(ctx, path, value, settings.headers, {
          example: '{ Authorization = "Bearer …" }',
          badKey: notHeaderName,
        });
        break;
      case "startup_timeout":
        put(settings, "startup_timeout", ctx.seconds(path, value, STARTUP_TIMEOUT_EXAMPLE));
        break;
      case "protocol":
        put(settings, "protocol", ctx.oneOf(path, value, MCP_PROTOCOLS));
        break;
      default:
        ctx.unknownKey(path, PROVIDER_KEYS);
    }
  }
}

function providerCommand(
  ctx: LayerContext,
  path: string[],
  value: unknown,
): ConfigValue<string> | undefined {
  if (typeof value !== "string") {
    return ctx.wrongType(
      path,
      value,
      'a string naming the program, e.g. "github-mcp-server"; put its arguments in arguments = [...]',
    );
  }
  if (value === "") return ctx.notValid(path, value, 'a program name, e.g. "github-mcp-server"');
  return ctx.value(path, value);
}

/** A table of strings (`environment`, `headers`) into `target`, key by key. */
function stringTable(
  ctx: LayerContext,
  path: string[],
  value: unknown,
  target: Map<string, ConfigValue<string>>,
  options: { readonly example: string; readonly badKey?: (key: string) => string | undefined },
): void {
  if (!isTable(value)) {
    ctx.wrongType(path, value, `a table of strings, e.g. ${options.example}`);
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const itemPath = [...path, key];
    const bad = options.badKey?.(key);
    if (bad !== undefined) {
      ctx.fail(itemPath, `${formatKeyPath(itemPath)} ${bad}`);
      continue;
    }
    const checked = ctx.string(itemPath, item);
    if (checked !== undefined) target.set(key, checked);
  }
}

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Why `key` cannot name an HTTP header, or `undefined` when it can. */
function notHeaderName(key: string): string | undefined {
  return HEADER_NAME.test(key)
    ? undefined
    : 'is not an HTTP header name (expected letters, digits and "-", e.g. "Authorization")';
}

function url(ctx: LayerContext, path: string[], value: unknown): ConfigValue<string> | undefined {
  const expected = `an http:// or https:// URL, e.g. ${URL_EXAMPLE}`;
  if (typeof value !== "string") return ctx.wrongType(path, value, expected);
  if (!URL.canParse(value)) return ctx.notValid(path, value, expected);
  const protocol = new URL(value).protocol;
  if (protocol !== "http:" && protocol !== "https:") return ctx.notValid(path, value, expected);
  return ctx.value(path, value);
}
