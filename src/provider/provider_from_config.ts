/**
 * The model client a configuration names: `assistant.model.id` picks the API
 * family and the model, `[providers.llm.<family>]` says where it is reached,
 * which environment variable holds the key and (Anthropic) `max_tokens`. The key is read from the
 * environment here, when the client is made, and goes nowhere but the
 * client. Each family's client library is loaded only when it is used.
 *
 * @module
 */

import type { SpillwayConfig } from "../config/spillway_config.ts";
import type { Provider } from "./provider.ts";
import { environment } from "../platform/processes.ts";

/** Options of {@linkcode providerFromConfig}. */
export interface ProviderFromConfigOptions {
  /** Where the API key is read from. Default: the process environment. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Retries of a request that may pass on a second try. Default 3 (`DEFAULT_MODEL_RETRIES`). */
  readonly maxRetries?: number;
  /** Told, one line each, when an image in a result is sent as its placeholder. Default: nobody. */
  readonly notice?: (text: string) => void;
}

/**
 * The provider for `config.model()`, or `undefined` when the model is
 * `"script"` (the scripted provider needs a script, which is not config).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseConfig } from "../config/parse_config.ts";
 * import { providerFromConfig } from "./provider_from_config.ts";
 * const config = parseConfig(`
 * [assistant.model]
 * id = "openai/qwen2.5:7b"
 * [providers.llm.openai]
 * base_url = "http://127.0.0.1:11434/v1"
 * `);
 * const provider = await providerFromConfig(config, { env: {} });
 * assert.equal(provider?.model, "openai/qwen2.5:7b");
 * assert.equal(await providerFromConfig(parseConfig("")), undefined);
 * ```
 */
export async function providerFromConfig(
  config: SpillwayConfig,
  options: ProviderFromConfigOptions = {},
): Promise<Provider | undefined> {
  const id = config.model().value;
  if (id.provider === "script") return undefined;
  const api = config.llmProvider(id.provider);
  const env = options.env ?? environment();
  const key = env[api.apiKeyEnv];
  const common = {
    model: id.model,
    apiKeyEnv: api.apiKeyEnv,
    ...(api.baseUrl === undefined ? {} : { baseUrl: api.baseUrl }),
    ...(key === undefined || key === "" ? {} : { apiKey: key }),
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
  };
  if (id.provider === "openai") {
    const { OpenAiProvider } = await import("./openai_provider.ts");
    return new OpenAiProvider(common);
  }
  const { AnthropicProvider } = await import("./anthropic_provider.ts");
  return new AnthropicProvider({
    ...common,
    ...(api.maxTokens === undefined ? {} : { maxTokens: api.maxTokens }),
    ...(options.notice === undefined ? {} : { notice: options.notice }),
  });
}
