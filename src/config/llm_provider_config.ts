/**
 * One model API from `[providers.llm.<name>]`: where it is reached, which
 * environment variable holds its key, and (Anthropic) how long an answer may
 * be. The key itself is never written in a config file, and nothing in
 * spillway prints it; only the variable's name is configuration.
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

/**
 * The most tokens an Anthropic answer may take unless `max_tokens` says
 * otherwise (the Messages API requires a limit): room for long answers and
 * large tool arguments on current models.
 */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

/** A validated, merged `[providers.llm.<name>]` table with its defaults applied. */
export interface LlmProviderConfig {
  /** `openai` or `anthropic`. */
  readonly name: LlmProviderName;
  /** `base_url`: a compatible server's endpoint; absent means the public endpoint. */
  readonly baseUrl?: string;
  /** `api_key_env`: the environment variable holding the key. */
  readonly apiKeyEnv: string;
  /**
   * `max_tokens`, Anthropic only: the most tokens an answer may take
   * (default {@linkcode DEFAULT_ANTHROPIC_MAX_TOKENS}). Absent for OpenAI.
   */
  readonly maxTokens?: number;
  /**
   * Which layer set each key (`"base_url"`, `"api_key_env"`, `"max_tokens"`):
   * `"default"`, a path, `"--cfg"`.
   */
  readonly origins: Readonly<Record<string, string>>;
}
