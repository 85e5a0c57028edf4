/**
 * One model API from `[providers.llm.<name>]`: where it is reached and which
 * environment variable holds its key. The key itself is never written in a
 * config file, and nothing in spillway prints it; only the variable's name
 * is configuration.
 *
 * @module
 */

import type { LlmProviderName } from "./model_id.ts";

/** The API's public endpoint, used when `base_url` is not set. */
export const PUBLIC_BASE_URLS: Readonly<Record<LlmProviderName, string>> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
};

/** The variable the key is read from unless `api_key_env` names another. */
export const DEFAULT_API_KEY_ENVS: Readonly<Record<LlmProviderName, string>> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
};

/** A validated, merged `[providers.llm.<name>]` table with its defaults applied. */
export interface LlmProviderConfig {
  /** `openai` or `anthropic`. */
  readonly name: LlmProviderName;
  /** `base_url`: a compatible server's endpoint; absent means the public endpoint. */
  readonly baseUrl?: string;
  /** `api_key_env`: the environment variable holding the key. */
  readonly apiKeyEnv: string;
  /** Which layer set each key (`"base_url"`, `"api_key_env"`): `"default"`, a path, `"--cfg"`. */
  readonly origins: Readonly<Record<string, string>>;
}
