/**
 * One validated config layer (a file, a `--cfg` flag, the defaults) and how
 * layers merge: key by key, later wins. Arrays (`command`, `arguments`) are
 * single values and replace each other whole (argv lists must never be
 * spliced together); `environment` merges variable by variable.
 *
 * @module
 */

import type { ByteSize } from "../size/byte_size.ts";
import type { ConfigValue } from "./config_value.ts";
import type { Duration } from "./duration.ts";
import type { McpProtocol } from "./mcp_provider_config.ts";
import type { LlmProviderName } from "./model_id.ts";
import type { StoreType } from "./store_config.ts";
import type { ToolSettings } from "./tool_settings.ts";

/** A tool table under construction. */
export type MutableToolSettings = { -readonly [K in keyof ToolSettings]: ToolSettings[K] };

/** A `[providers.mcp.<name>]` table under construction. */
export interface ProviderSettings {
  type?: ConfigValue<"stdio" | "http">;
  command?: ConfigValue<string>;
  arguments?: ConfigValue<readonly string[]>;
  environment: Map<string, ConfigValue<string>>;
  /** `pass_env` (stdio): the variables of spillway's environment the server also gets. */
  pass_env?: ConfigValue<readonly string[]>;
  /** `headers` (http), merged header by header like `environment`. */
  headers: Map<string, ConfigValue<string>>;
  url?: ConfigValue<string>;
  startup_timeout?: ConfigValue<number>;
  /** `protocol`: `auto`, `2025-11-25` or `2026-07-28`. */
  protocol?: ConfigValue<McpProtocol>;
  /** Where the table was first written, for messages about missing keys. */
  at: string;
}

/** A `[providers.llm.<name>]` table under construction. */
export interface LlmSettings {
  base_url?: ConfigValue<string>;
  api_key_env?: ConfigValue<string>;
  /** Anthropic only. */
  max_tokens?: ConfigValue<number>;
}

/** The `[serve]` table under construction. */
export interface ServeSettings {
  client_ceiling?: ConfigValue<ByteSize>;
  /** By client name; layers merge entry by entry. */
  client_ceilings?: Map<string, ConfigValue<ByteSize>>;
  token_env?: ConfigValue<string>;
  /** `[serve.tokens.NAME] env`, by client name; layers merge entry by entry. */
  tokens?: Map<string, ConfigValue<string>>;
  allowed_origins?: ConfigValue<readonly string[]>;
  max_request_size?: ConfigValue<ByteSize>;
  session_idle_timeout?: ConfigValue<Duration>;
  max_sessions?: ConfigValue<number>;
  input_timeout?: ConfigValue<Duration>;
  max_input_waits?: ConfigValue<number>;
  max_input_size?: ConfigValue<ByteSize>;
  record_input_contents?: ConfigValue<boolean>;
}

/** The `[store]` table under construction. */
export interface StoreSettings {
  type?: ConfigValue<StoreType>;
  url?: ConfigValue<string>;
  password_env?: ConfigValue<string>;
}

/** The validated content of one layer, or of several merged. */
export interface ConfigLayer {
  readonly tools: Map<string, MutableToolSettings>;
  readonly providers: Map<string, ProviderSettings>;
  /** `assistant.model.id`, as written (validated). */
  model?: ConfigValue<string>;
  readonly llm: Map<LlmProviderName, LlmSettings>;
  /** `[serve]`. */
  readonly serve: ServeSettings;
  /** `[store]`. */
  readonly store: StoreSettings;
  /** Path keys of values that were rejected, so cross-checks do not pile on. */
  readonly invalid: Set<string>;
}

/** An empty layer. */
export function emptyLayer(): ConfigLayer {
  return {
    tools: new Map(),
    providers: new Map(),
    llm: new Map(),
    serve: {},
    store: {},
    invalid: new Set(),
  };
}

/** Merges `layers` in order; later values win key by key. */
export function mergeLayers(layers: readonly ConfigLayer[]): ConfigLayer {
  const merged = emptyLayer();
  for (const layer of layers) {
    for (const [name, settings] of layer.tools) {
      const target = merged.tools.get(name) ?? {};
      merged.tools.set(name, Object.assign(target, definedOnly(settings)));
    }
    for (const [name, settings] of layer.providers) {
      const target = merged.providers.get(name);
      if (target === undefined) {
        merged.providers.set(name, {
          ...settings,
          environment: new Map(settings.environment),
          headers: new Map(settings.headers),
        });
        continue;
      }
      const { environment, headers, at: _at, ...rest } = settings;
      Object.assign(target, definedOnly(rest));
      for (const [key, value] of environment) target.environment.set(key, value);
      for (const [key, value] of headers) target.headers.set(key, value);
    }
    if (layer.model !== undefined) merged.model = layer.model;
    for (const [name, settings] of layer.llm) {
      merged.llm.set(name, Object.assign(merged.llm.get(name) ?? {}, definedOnly(settings)));
    }
    const { client_ceilings: ceilings, tokens, ...serve } = layer.serve;
    Object.assign(merged.serve, definedOnly(serve));
    if (ceilings !== undefined) {
      merged.serve.client_ceilings = new Map([...merged.serve.client_ceilings ?? [], ...ceilings]);
    }
    if (tokens !== undefined) {
      merged.serve.tokens = new Map([...merged.serve.tokens ?? [], ...tokens]);
    }
    Object.assign(merged.store, definedOnly(layer.store));
    for (const key of layer.invalid) merged.invalid.add(key);
  }
  return merged;
}

function definedOnly<T extends object>(record: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(record).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}
