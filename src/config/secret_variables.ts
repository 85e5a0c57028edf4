/**
 * The one list of spillway's own secrets: the environment variables it
 * reads a token or an API key from. No process spillway starts (a local
 * tool, a stdio MCP server) gets one of them unless its `pass_env` names
 * it. Whatever else comes to hold a secret joins this list.
 *
 * @module
 */

import { DEFAULT_API_KEY_ENVS } from "./llm_provider_config.ts";
import { LLM_PROVIDERS } from "./model_id.ts";
import { DEFAULT_SERVE_TOKEN_ENV } from "./serve_config.ts";
import type { SpillwayConfig } from "./spillway_config.ts";

/** A variable holding one of spillway's secrets, and the setting that makes it one. */
export interface SecretVariable {
  /** The variable's name, e.g. `SPILLWAY_SERVE_TOKEN`. */
  readonly name: string;
  /** Why it is a secret: the setting naming it, e.g. `serve.token_env`. */
  readonly setting: string;
}

/**
 * The variables holding spillway's secrets under `config`, each once, in a
 * stable order: the serve token's (`SPILLWAY_SERVE_TOKEN` and whatever
 * `serve.token_env` names), every client's own (`serve.tokens.<name>.env`),
 * then every model API's key
 * (`providers.llm.<name>.api_key_env`, and its default, `OPENAI_API_KEY`
 * and `ANTHROPIC_API_KEY`, even when another variable is named: their
 * names say what they hold).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseConfig } from "./parse_config.ts";
 * import { secretVariables } from "./secret_variables.ts";
 * const config = parseConfig(
 *   '[serve]\ntoken_env = "GATEWAY_TOKEN"\n[serve.tokens.alice]\nenv = "ALICE_TOKEN"\n',
 * );
 * assert.deepEqual(secretVariables(config).map((secret) => secret.name), [
 *   "SPILLWAY_SERVE_TOKEN",
 *   "GATEWAY_TOKEN",
 *   "ALICE_TOKEN",
 *   "OPENAI_API_KEY",
 *   "ANTHROPIC_API_KEY",
 * ]);
 * ```
 */
export function secretVariables(config: SpillwayConfig): SecretVariable[] {
  const found = new Map<string, string>();
  const add = (name: string, setting: string) => {
    if (!found.has(name)) found.set(name, setting);
  };
  add(DEFAULT_SERVE_TOKEN_ENV, "serve.token_env (its default)");
  add(config.serve().tokenEnv.value, "serve.token_env");
  for (const [client, env] of config.serve().tokens) add(env.value, `serve.tokens.${client}.env`);
  for (const provider of LLM_PROVIDERS) {
    add(config.llmProvider(provider).apiKeyEnv, `providers.llm.${provider}.api_key_env`);
    add(DEFAULT_API_KEY_ENVS[provider], `providers.llm.${provider}.api_key_env (its default)`);
  }
  return [...found].map(([name, setting]) => ({ name, setting }));
}
