/**
 * The model part of `spillway config check`: which model
 * `assistant.model.id` names, where its API is reached and which variable
 * holds its key (only whether that variable is set, never its value).
 *
 * @module
 */

import type { SpillwayConfig } from "../config/spillway_config.ts";
import { PUBLIC_BASE_URLS } from "../config/llm_provider_config.ts";
import { formatTable } from "./_table.ts";

/**
 * The model and its API: where it is reached and which variable holds the
 * key. Only whether that variable is set is shown, never its value.
 */
export function modelSection(
  config: SpillwayConfig,
  env: Readonly<Record<string, string | undefined>>,
  shorten: (path: string) => string,
): string {
  const from = (origin: string | undefined) =>
    origin === undefined || origin === "default" || origin.startsWith("--")
      ? origin ?? "default"
      : shorten(origin);
  const model = config.model();
  const rows = [["SETTING", "VALUE", "FROM"]];
  if (model.value.provider === "script") {
    rows.push([
      "assistant.model.id",
      `${model.text} (the scripted provider: query needs --script FILE)`,
      from(model.origin),
    ]);
    return `Model:\n${formatTable(rows)}`;
  }
  const provider = config.llmProvider(model.value.provider);
  const key = (name: string) => `providers.llm.${provider.name}.${name}`;
  rows.push(["assistant.model.id", model.text, from(model.origin)]);
  rows.push([
    key("base_url"),
    provider.baseUrl ?? `${PUBLIC_BASE_URLS[provider.name]} (public endpoint)`,
    from(provider.origins["base_url"]),
  ]);
  const set = (env[provider.apiKeyEnv] ?? "") !== "";
  const state = set
    ? "set"
    : provider.baseUrl === undefined
    ? "not set"
    : "not set: no key is sent";
  rows.push([
    key("api_key_env"),
    `${provider.apiKeyEnv} (${state})`,
    from(provider.origins["api_key_env"]),
  ]);
  if (provider.maxTokens !== undefined) {
    rows.push([
      key("max_tokens"),
      String(provider.maxTokens),
      from(provider.origins["max_tokens"]),
    ]);
  }
  return `Model:\n${formatTable(rows)}`;
}
