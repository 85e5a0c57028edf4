/**
 * Builds a {@linkcode SpillwayConfig} from layer texts: parse each, validate
 * each, merge over the built-in defaults, then run the checks that need the
 * merged picture. Every problem of every layer is collected into one
 * `config_invalid` error, so a user fixes them all in one round.
 *
 * @module
 */

import { parse, TomlError } from "smol-toml";
import { SpillwayError } from "../errors/spillway_error.ts";
import { SizeThreshold } from "../size/size_threshold.ts";
import { DEFAULT_HEAD_PERCENT, parseTruncationSplit } from "../size/truncation.ts";
import { BUILTIN_TOOL_DEFAULTS, DEFAULT_STARTUP_TIMEOUT_SECONDS } from "./builtin_defaults.ts";
import type { ConfigSource } from "./config_source.ts";
import type { ConfigValue } from "./config_value.ts";
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
import { Duration } from "./duration.ts";
import { ByteSize } from "../size/byte_size.ts";
import { SpillwayConfig } from "./spillway_config.ts";
import type { StoreConfig } from "./store_config.ts";
import { checkMerged, type KeyEnvironment } from "./_check_merged.ts";
import { indexKeyLines } from "./_key_lines.ts";
import { type ConfigLayer, emptyLayer, mergeLayers, type ProviderSettings } from "./_layer.ts";
import { validateLayer } from "./_validate_layer.ts";
import {
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  DEFAULT_API_KEY_ENVS,
  type LlmProviderConfig,
} from "./llm_provider_config.ts";
import { LLM_PROVIDERS, type LlmProviderName, parseModelId, SCRIPT_MODEL_ID } from "./model_id.ts";
import { reasonText } from "../errors/reason_text.ts";

/** One layer to build from. */
export type LayerInput =
  /** A TOML document; `site` is the file name messages cite. */
  | { readonly text: string; readonly origin: string; readonly site: string }
  /** An already-parsed document (a `--cfg` assignment). */
  | { readonly document: Record<string, unknown>; readonly origin: string; readonly site: string }
  /** A layer that could not be read (a missing `--config` file, a malformed `--cfg`). */
  | { readonly problem: string };

/** Options of {@linkcode buildConfig}. */
export interface BuildConfigOptions {
  /**
   * The environment the model's API key will be read from: a model reached at
   * its public endpoint without a key there is a problem. Default: not checked.
   */
  readonly env?: KeyEnvironment;
}

/**
 * Builds the config from `inputs` (in layering order, defaults excluded).
 *
 * @throws {SpillwayError} `config_invalid` listing every problem, one per line
 */
export function buildConfig(
  inputs: readonly LayerInput[],
  sources: readonly ConfigSource[],
  options: BuildConfigOptions = {},
): SpillwayConfig {
  const errors: string[] = [];
  const layers = [defaultsLayer()];
  let complete = true;
  for (const input of inputs) {
    if ("problem" in input) {
      errors.push(input.problem);
      complete = false;
      continue;
    }
    let document: Record<string, unknown>;
    let lines: ReadonlyMap<string, number> = new Map();
    if ("text" in input) {
      try {
        document = parse(input.text);
      } catch (error) {
        errors.push(syntaxError(input.site, error));
        complete = false;
        continue;
      }
      lines = indexKeyLines(input.text);
    } else {
      document = input.document;
    }
    const validated = validateLayer(document, { origin: input.origin, site: input.site, lines });
    errors.push(...validated.errors);
    layers.push(validated.layer);
  }
  const merged = mergeLayers(layers);
  // With a layer missing, cross-layer checks would report its absence as
  // problems of the other layers (e.g. an "undefined" MCP server).
  if (complete) errors.push(...checkMerged(merged, options.env));
  if (errors.length > 0) throw configInvalid(errors);
  const model = merged.model ?? { value: SCRIPT_MODEL_ID, origin: "default", at: "default" };
  const id = parseModelId(model.value);
  if (!id.ok) throw new TypeError(`validated model id ${model.value} does not parse`);
  return new SpillwayConfig({
    tools: merged.tools,
    providers: [...merged.providers].map(([name, settings]) => provider(name, settings)),
    model: { ...model, value: id.id, text: model.value },
    llmProviders: LLM_PROVIDERS.map((name) => llmProvider(name, merged)),
    serve: serveConfig(merged),
    store: storeConfig(merged),
    sources,
  });
}

/** The `config_invalid` error for `errors`: its message lists each on its own line. */
export function configInvalid(errors: readonly string[]): SpillwayError {
  return new SpillwayError("config_invalid", errors.join("\n"), { errors: [...errors] });
}

function syntaxError(site: string, error: unknown): string {
  if (error instanceof TomlError) {
    // smol-toml's first line reads "Invalid TOML document: <reason>"; the rest is a code excerpt.
    const reason = (error.message.split("\n")[0] ?? "").replace(/^Invalid TOML document: /, "");
    return `${site}:${error.line}:${error.column}: TOML syntax error: ${reason}`;
  }
  const reason = reasonText(error);
  return `${site}: TOML syntax error: ${reason.split("\n")[0]}`;
}

function defaultsLayer(): ConfigLayer {
  const layer = emptyLayer();
  const value = <T>(v: T): ConfigValue<T> => ({ value: v, origin: "default", at: "default" });
  layer.tools.set("*", {
    run: value(BUILTIN_TOOL_DEFAULTS.run),
    result: value(BUILTIN_TOOL_DEFAULTS.result),
    size_threshold: value(SizeThreshold.parse(BUILTIN_TOOL_DEFAULTS.size_threshold)),
    truncation: value(BUILTIN_TOOL_DEFAULTS.truncation),
    spill: value<boolean>(BUILTIN_TOOL_DEFAULTS.spill),
    truncation_split: value(
      parseTruncationSplit(BUILTIN_TOOL_DEFAULTS.truncation_split) ?? DEFAULT_HEAD_PERCENT,
    ),
    cancellation_response: value(BUILTIN_TOOL_DEFAULTS.cancellation_response),
    timeout: value(BUILTIN_TOOL_DEFAULTS.timeout),
    "style.inline_results": value(BUILTIN_TOOL_DEFAULTS["style.inline_results"]),
    "style.results_file_link": value(BUILTIN_TOOL_DEFAULTS["style.results_file_link"]),
  });
  return layer;
}

/** `[serve]`, its defaults applied. */
function serveConfig(merged: ConfigLayer): ServeConfig {
  const byDefault = <T>(value: T): ConfigValue<T> => ({ value, origin: "default", at: "default" });
  const {
    client_ceiling,
    client_ceilings,
    token_env,
    tokens,
    allowed_origins,
    max_request_size,
    session_idle_timeout,
    max_sessions,
    input_timeout,
    max_input_waits,
    max_input_size,
    record_input_contents,
  } = merged.serve;
  return {
    ...(client_ceiling === undefined ? {} : { clientCeiling: client_ceiling }),
    clientCeilings: client_ceilings ?? new Map(),
    tokenEnv: token_env ?? byDefault(DEFAULT_SERVE_TOKEN_ENV),
    tokens: tokens ?? new Map(),
    allowedOrigins: allowed_origins ?? byDefault([]),
    maxRequestSize: max_request_size ?? byDefault(ByteSize.parse(DEFAULT_MAX_REQUEST_SIZE)),
    sessionIdleTimeout: session_idle_timeout ??
      byDefault(Duration.parse(DEFAULT_SESSION_IDLE_TIMEOUT)),
    maxSessions: max_sessions ?? byDefault(DEFAULT_MAX_SESSIONS),
    inputTimeout: input_timeout ?? byDefault(Duration.parse(DEFAULT_INPUT_TIMEOUT)),
    maxInputWaits: max_input_waits ?? byDefault(DEFAULT_MAX_INPUT_WAITS),
    maxInputSize: max_input_size ?? byDefault(ByteSize.parse(DEFAULT_MAX_INPUT_SIZE)),
    recordInputContents: record_input_contents ?? byDefault(false),
  };
}

/** `[store]`, its defaults applied: the file store unless `type` says otherwise. */
function storeConfig(merged: ConfigLayer): StoreConfig {
  const { type, url, password_env } = merged.store;
  return {
    type: type ?? { value: "file", origin: "default", at: "default" },
    ...(url === undefined ? {} : { url }),
    ...(password_env === undefined ? {} : { passwordEnv: password_env }),
  };
}

/** A model API's merged settings, its defaults applied. */
function llmProvider(name: LlmProviderName, merged: ConfigLayer): LlmProviderConfig {
  const settings = merged.llm.get(name) ?? {};
  const apiKeyEnv = settings.api_key_env ??
    { value: DEFAULT_API_KEY_ENVS[name], origin: "default", at: "default" };
  const origins: Record<string, string> = { api_key_env: apiKeyEnv.origin };
  if (settings.base_url !== undefined) origins["base_url"] = settings.base_url.origin;
  if (name === "anthropic") origins["max_tokens"] = settings.max_tokens?.origin ?? "default";
  return {
    name,
    ...(settings.base_url === undefined ? {} : { baseUrl: settings.base_url.value }),
    apiKeyEnv: apiKeyEnv.value,
    ...(name === "anthropic"
      ? { maxTokens: settings.max_tokens?.value ?? DEFAULT_ANTHROPIC_MAX_TOKENS }
      : {}),
    origins,
  };
}

/** Turns merged, cross-checked settings into the public provider shape. */
function provider(name: string, settings: ProviderSettings): McpProviderConfig {
  const origins: Record<string, string> = {};
  for (
    const key of [
      "type",
      "command",
      "arguments",
      "url",
      "startup_timeout",
      "protocol",
      "pass_env",
    ] as const
  ) {
    const value = settings[key];
    if (value !== undefined) origins[key] = value.origin;
  }
  for (const [key, value] of settings.environment) origins[`environment.${key}`] = value.origin;
  for (const [key, value] of settings.headers) origins[`headers.${key}`] = value.origin;
  const startupTimeoutMs = Math.round(
    (settings.startup_timeout?.value ?? DEFAULT_STARTUP_TIMEOUT_SECONDS) * 1000,
  );
  const protocol = settings.protocol?.value ?? "auto";
  if (settings.type?.value === "http") {
    return {
      name,
      type: "http",
      protocol,
      url: settings.url?.value ?? "",
      headers: Object.fromEntries([...settings.headers].map(([key, value]) => [key, value.value])),
      startupTimeoutMs,
      origins,
    };
  }
  return {
    name,
    type: "stdio",
    startupTimeoutMs,
    protocol,
    command: settings.command?.value ?? "",
    arguments: settings.arguments?.value ?? [],
    environment: Object.fromEntries(
      [...settings.environment].map(([key, value]) => [key, value.value]),
    ),
    passEnv: settings.pass_env?.value ?? [],
    origins,
  };
}
