/**
 * Validates one `[providers.llm.<name>]` table of a layer: where a model API
 * is reached (`base_url`), which environment variable holds its key
 * (`api_key_env`) and, for Anthropic, the most tokens an answer may take
 * (`max_tokens`). A key written in the file itself is refused by name: keys
 * belong in the environment, not in a file that gets committed or shared.
 *
 * @module
 */

import type { ConfigValue } from "./config_value.ts";
import { formatKeyPath } from "./_key_path.ts";
import { isTable, type LayerContext, put } from "./_layer_context.ts";
import type { LlmSettings } from "./_layer.ts";
import { LLM_PROVIDERS, type LlmProviderName } from "./model_id.ts";

/** Keys of each LLM provider table, in the order messages list them. */
export const LLM_PROVIDER_KEYS: Readonly<Record<LlmProviderName, readonly string[]>> = {
  openai: ["base_url", "api_key_env"],
  anthropic: ["base_url", "api_key_env", "max_tokens"],
};

/** An environment variable name as shells accept it. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Keys that would put the secret itself in the file. */
const SECRET_KEYS = new Set(["api_key", "key", "token", "apikey"]);

/** Validates `table` as `[providers.llm.<name>]` and stores what is valid in `ctx.layer`. */
export function validateLlmProvider(ctx: LayerContext, name: string, table: unknown): void {
  const base = ["providers", "llm", name];
  if (!(LLM_PROVIDERS as readonly string[]).includes(name)) {
    ctx.unknownKey(base, LLM_PROVIDERS);
    return;
  }
  const provider = name as LlmProviderName;
  const keys = LLM_PROVIDER_KEYS[provider];
  if (!isTable(table)) {
    ctx.wrongType(base, table, `a table with ${keys.slice(0, -1).join(", ")} or ${keys.at(-1)}`);
    return;
  }
  const settings: LlmSettings = ctx.layer.llm.get(provider) ?? {};
  ctx.layer.llm.set(provider, settings);
  for (const [key, value] of Object.entries(table)) {
    const path = [...base, key];
    if (key === "base_url") {
      put(settings, "base_url", baseUrl(ctx, path, value));
    } else if (key === "api_key_env") {
      put(settings, "api_key_env", envName(ctx, path, value));
    } else if (key === "max_tokens" && keys.includes(key)) {
      put(settings, "max_tokens", maxTokens(ctx, path, value));
    } else if (SECRET_KEYS.has(key.toLowerCase())) {
      // Do not quote the value: it is probably the key.
      ctx.fail(
        path,
        `${formatKeyPath(path)} is not read: a key never goes in a config file; put it in an ` +
          `environment variable and name that variable in ${
            formatKeyPath([...base, "api_key_env"])
          }`,
      );
    } else {
      ctx.unknownKey(path, keys);
    }
  }
}

function baseUrl(ctx: LayerContext, path: string[], value: unknown) {
  const expected = 'an http:// or https:// URL, e.g. "http://127.0.0.1:11434/v1"';
  if (typeof value !== "string") return ctx.wrongType(path, value, expected);
  if (!URL.canParse(value)) return ctx.notValid(path, value, expected);
  const protocol = new URL(value).protocol;
  if (protocol !== "http:" && protocol !== "https:") return ctx.notValid(path, value, expected);
  return ctx.value(path, value);
}

function maxTokens(ctx: LayerContext, path: string[], value: unknown) {
  const expected = "a whole number of tokens, at least 1, e.g. 16000";
  if (typeof value !== "number") return ctx.wrongType(path, value, expected);
  if (!Number.isSafeInteger(value) || value < 1) return ctx.notValid(path, value, expected);
  return ctx.value(path, value);
}

/** Checks `value` names an environment variable (`example` shows one). */
export function envName(
  ctx: LayerContext,
  path: string[],
  value: unknown,
  example = "OPENAI_API_KEY",
): ConfigValue<string> | undefined {
  const expected = `the name of an environment variable, e.g. "${example}"`;
  if (typeof value !== "string") return ctx.wrongType(path, value, expected);
  if (!ENV_NAME.test(value)) return ctx.notValid(path, value, expected);
  return ctx.value(path, value);
}
