/**
 * The loaded, validated configuration: the object the runtime and the CLI
 * read tool and provider settings from. It is immutable; build it with
 * {@linkcode parseConfig} or {@linkcode loadConfig}.
 *
 * @module
 */

import type { ConfigSource } from "./config_source.ts";
import type { ConfigValue } from "./config_value.ts";
import type { LlmProviderConfig } from "./llm_provider_config.ts";
import type { McpProviderConfig } from "./mcp_provider_config.ts";
import {
  DEFAULT_INPUT_TIMEOUT,
  DEFAULT_MAX_INPUT_SIZE,
  DEFAULT_MAX_INPUT_WAITS,
  DEFAULT_MAX_REQUEST_SIZE,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SERVE_TOKEN_ENV,
  DEFAULT_SESSION_IDLE_TIMEOUT,
  type ServeConfig,
} from "./serve_config.ts";
import { ByteSize } from "../size/byte_size.ts";
import { Duration } from "./duration.ts";
import type { LlmProviderName, ModelId } from "./model_id.ts";
import type { StoreConfig } from "./store_config.ts";
import { ToolConfigWithDefaults } from "./tool_config_with_defaults.ts";
import type { ToolSettings } from "./tool_settings.ts";

/** What a {@linkcode SpillwayConfig} is built from (already merged and validated). */
export interface SpillwayConfigInit {
  /** Merged tool tables by name, including `"*"` (with the built-in defaults applied). */
  readonly tools: ReadonlyMap<string, ToolSettings>;
  /** Upstream MCP servers, in the order first defined. */
  readonly providers: readonly McpProviderConfig[];
  /** `assistant.model.id`, parsed, with where it came from. */
  readonly model: ModelSetting;
  /** Every model API, its defaults applied. */
  readonly llmProviders: readonly LlmProviderConfig[];
  /**
   * `[serve]`, defaults applied. Default: no ceiling, the default token
   * variable, no origins, the default limits.
   */
  readonly serve?: ServeConfig;
  /** `[store]`, defaults applied. Default: the file store. */
  readonly store?: StoreConfig;
  /** The layers looked at, in order. */
  readonly sources: readonly ConfigSource[];
}

/** The configured model: the parsed id, its text as written, and its origin. */
export interface ModelSetting extends ConfigValue<ModelId> {
  /** The id as written, e.g. `"openai/gpt-4.1-mini"` or `"script"`. */
  readonly text: string;
}

/**
 * A validated, layered spillway configuration.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseConfig } from "./parse_config.ts";
 * const config = parseConfig(`
 * [conversation.tools.cargo_test]
 * source = "local"
 * command = ["cargo", "test"]
 * `);
 * assert.deepEqual(config.toolNames(), ["cargo_test"]);
 * assert.equal(config.tool("unconfigured").sizeThreshold().toString(), "256KB");
 * ```
 */
export class SpillwayConfig {
  /**
   * The layers looked at, in layering order (later wins), including absent optional files.
   *
   * @internal for `config check`; not part of the embedding API
   */
  readonly sources: readonly ConfigSource[];
  readonly #tools: ReadonlyMap<string, ToolSettings>;
  readonly #providers: readonly McpProviderConfig[];
  readonly #model: ModelSetting;
  readonly #llmProviders: readonly LlmProviderConfig[];
  readonly #serve: ServeConfig;
  readonly #store: StoreConfig;

  /**
   * Wraps merged, validated settings. Use {@linkcode parseConfig} or
   * {@linkcode loadConfig} instead: they validate before building.
   *
   * @param init merged, validated settings
   * @internal built by the loader; not part of the embedding API
   */
  constructor(init: SpillwayConfigInit) {
    this.sources = init.sources;
    this.#tools = init.tools;
    this.#providers = init.providers;
    this.#model = init.model;
    this.#llmProviders = init.llmProviders;
    this.#serve = init.serve ?? {
      clientCeilings: new Map(),
      tokenEnv: { value: DEFAULT_SERVE_TOKEN_ENV, origin: "default", at: "default" },
      tokens: new Map(),
      allowedOrigins: { value: [], origin: "default", at: "default" },
      maxRequestSize: {
        value: ByteSize.parse(DEFAULT_MAX_REQUEST_SIZE),
        origin: "default",
        at: "default",
      },
      sessionIdleTimeout: {
        value: Duration.parse(DEFAULT_SESSION_IDLE_TIMEOUT),
        origin: "default",
        at: "default",
      },
      maxSessions: { value: DEFAULT_MAX_SESSIONS, origin: "default", at: "default" },
      inputTimeout: {
        value: Duration.parse(DEFAULT_INPUT_TIMEOUT),
        origin: "default",
        at: "default",
      },
      maxInputWaits: { value: DEFAULT_MAX_INPUT_WAITS, origin: "default", at: "default" },
      maxInputSize: {
        value: ByteSize.parse(DEFAULT_MAX_INPUT_SIZE),
        origin: "default",
        at: "default",
      },
      recordInputContents: { value: false, origin: "default", at: "default" },
    };
    this.#store = init.store ?? { type: { value: "file", origin: "default", at: "default" } };
  }

  /**
   * The model `query` asks (`assistant.model.id`); `"script"`, the scripted
   * provider, unless configured.
   *
   * @internal for `query`; embedders pass a provider (`providerFromConfig(config)`)
   */
  model(): ModelSetting {
    return this.#model;
  }

  /**
   * The `[serve]` settings of `spillway serve`, defaults applied.
   *
   * @internal for `serve`; not part of the embedding API
   */
  serve(): ServeConfig {
    return this.#serve;
  }

  /**
   * The `[store]` settings: where conversations and stored outputs live,
   * defaults applied (the file store under the workspace).
   *
   * @internal for `openStore()` and `config check`; not part of the embedding API
   */
  store(): StoreConfig {
    return this.#store;
  }

  /**
   * The `[providers.llm.<name>]` settings of a model API, defaults applied.
   *
   * @internal for `providerFromConfig()` and `config check`; not part of the embedding API
   */
  llmProvider(name: LlmProviderName): LlmProviderConfig {
    const found = this.#llmProviders.find((provider) => provider.name === name);
    if (found === undefined) throw new RangeError(`unknown model API ${name}`);
    return found;
  }

  /**
   * The effective settings of tool `name`. Works for any name: a tool with
   * no entry of its own gets the `'*'` and built-in defaults.
   */
  tool(name: string): ToolConfigWithDefaults {
    const star = this.#tools.get("*") ?? {};
    return new ToolConfigWithDefaults(name, this.#tools.get(name), star);
  }

  /** Names of the tools with an entry of their own (not `'*'`), in the order first configured. */
  toolNames(): string[] {
    return [...this.#tools.keys()].filter((name) => name !== "*");
  }

  /**
   * The `providers.mcp` servers, in the order first defined.
   *
   * @internal for the runtime and `config check`; not part of the embedding API
   */
  mcpProviders(): readonly McpProviderConfig[] {
    return this.#providers;
  }

  /**
   * The `providers.mcp.<name>` server, if defined.
   *
   * @internal for the runtime; not part of the embedding API
   */
  mcpProvider(name: string): McpProviderConfig | undefined {
    return this.#providers.find((provider) => provider.name === name);
  }
}
