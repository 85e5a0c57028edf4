/**
 * Checks that need every layer at once: a local tool has a command, a tool's
 * MCP server is defined, a provider has what its type needs. A file may set
 * `source = "local"` and a `--config` file the `command`, so these run on the
 * merged config. Values already rejected are skipped: one mistake, one message.
 *
 * @module
 */

import type { ConfigValue } from "./config_value.ts";
import { formatKeyPath, pathKey } from "./_key_path.ts";
import type { ConfigLayer } from "./_layer.ts";
import { URL_EXAMPLE } from "./_validate_provider.ts";
import { DEFAULT_API_KEY_ENVS } from "./llm_provider_config.ts";
import { parseModelId } from "./model_id.ts";
import { parseToolSourceRef } from "./tool_vocabulary.ts";

/** The environment keys are looked up in; `undefined` skips the key check. */
export type KeyEnvironment = Readonly<Record<string, string | undefined>> | undefined;

/** Returns the problems of the merged config `merged`, in a stable order. */
export function checkMerged(merged: ConfigLayer, env: KeyEnvironment): string[] {
  return [
    ...checkTools(merged),
    ...checkProviders(merged),
    ...checkModelKey(merged, env),
    ...checkStore(merged),
  ];
}

/** `url` and `password_env` only mean something for the PostgreSQL store. */
function checkStore(merged: ConfigLayer): string[] {
  const { type, url, password_env } = merged.store;
  if (type?.value === "postgres" || merged.invalid.has(pathKey(["store", "type"]))) return [];
  const stray = [["url", url], ["password_env", password_env]] as const;
  return stray.flatMap(([key, value]) =>
    value === undefined ? [] : [
      `${value.at}: ${formatKeyPath(["store", key])} is set, but ${
        formatKeyPath(["store", "type"])
      } is "${type?.value ?? "file"}": it applies to type = "postgres" only (set ` +
      `${formatKeyPath(["store", "type"])} = "postgres", or remove it)`,
    ]
  );
}

/**
 * The model's API needs a key in the environment when it is reached at its
 * public endpoint. With a `base_url` (Ollama, llama.cpp, vLLM) a key is
 * optional: those servers usually take none, and one that does answers 401.
 */
function checkModelKey(merged: ConfigLayer, env: KeyEnvironment): string[] {
  const model = merged.model;
  if (env === undefined || model === undefined) return [];
  const parsed = parseModelId(model.value);
  if (!parsed.ok || parsed.id.provider === "script") return [];
  const provider = parsed.id.provider;
  const settings = merged.llm.get(provider) ?? {};
  const path = (key: string) => ["providers", "llm", provider, key];
  const rejected = ["base_url", "api_key_env"].some((key) =>
    merged.invalid.has(pathKey(path(key)))
  );
  if (rejected || merged.invalid.has(pathKey(["assistant", "model", "id"]))) return [];
  if (settings.base_url !== undefined) return [];
  const variable = settings.api_key_env?.value ?? DEFAULT_API_KEY_ENVS[provider];
  if ((env[variable] ?? "") !== "") return [];
  return [
    `${model.at}: ${formatKeyPath(["assistant", "model", "id"])} = "${model.value}" needs an ` +
    `API key, and the environment variable ${variable} is not set (export it, or name the ` +
    `variable that holds the key in ${formatKeyPath(path("api_key_env"))}; a local server ` +
    `that takes no key needs only ${formatKeyPath(path("base_url"))})`,
  ];
}

function checkTools(merged: ConfigLayer): string[] {
  const errors: string[] = [];
  const rejected = (name: string, key: string) =>
    merged.invalid.has(pathKey(["conversation", "tools", name, key]));
  const star = merged.tools.get("*");
  for (const [name, settings] of merged.tools) {
    const key = (k: string) => formatKeyPath(["conversation", "tools", name, k]);
    const split = settings.truncation_split;
    const truncation = settings.truncation ?? star?.truncation;
    if (name !== "*" && split !== undefined && !rejected(name, "truncation")) {
      const strategy = truncation?.value ?? "head";
      if (strategy !== "head_tail") {
        const json = strategy === "json" || strategy === "auto"
          ? ": a json cut keeps a JSON prefix, and has no tail to share the bytes with"
          : "";
        errors.push(
          `${split.at}: ${key("truncation_split")} is only used with truncation = "head_tail" ` +
            `(truncation is "${strategy}"${json})`,
        );
      }
    }
    const { source, command } = settings;
    if (rejected(name, "source") || rejected(name, "command")) continue;
    const ref = source === undefined ? undefined : parseToolSourceRef(source.value, name);
    if (source !== undefined && ref?.kind === "local" && command === undefined) {
      errors.push(
        `${source.at}: ${key("source")} = "local" needs command ` +
          '(an array of strings, e.g. ["cargo", "test"])',
      );
    }
    const actual = source === undefined ? "source is not set" : `source is "${source.value}"`;
    if (command !== undefined && ref?.kind !== "local") {
      errors.push(
        `${command.at}: ${key("command")} is only used with source = "local" (${actual})`,
      );
    }
    // '*' may set it for every local tool; a named tool of another source has no process to give it to.
    const passEnv = settings.pass_env;
    if (name !== "*" && passEnv !== undefined && ref?.kind !== "local") {
      const where = ref?.kind === "mcp"
        ? `; an MCP server's environment is set in [${
          formatKeyPath(["providers", "mcp", ref.server])
        }]`
        : "";
      errors.push(
        `${passEnv.at}: ${key("pass_env")} is only used with source = "local" (${actual}${where})`,
      );
    }
    if (source !== undefined && ref?.kind === "mcp" && !merged.providers.has(ref.server)) {
      const defined = [...merged.providers.keys()];
      const hint = defined.length === 0
        ? `no providers.mcp servers are defined; add a [${
          formatKeyPath(["providers", "mcp", ref.server])
        }] table`
        : `defined: ${defined.join(", ")}`;
      errors.push(
        `${source.at}: ${key("source")} = "${source.value}" names an undefined MCP server ` +
          `${ref.server} (${hint})`,
      );
    }
  }
  return errors;
}

function checkProviders(merged: ConfigLayer): string[] {
  const errors: string[] = [];
  for (const [name, settings] of merged.providers) {
    const key = (k: string) => formatKeyPath(["providers", "mcp", name, k]);
    if (merged.invalid.has(pathKey(["providers", "mcp", name, "type"]))) continue;
    const type = settings.type;
    if (type === undefined) {
      errors.push(`${settings.at}: ${key("type")} is missing (expected one of: stdio, http)`);
      continue;
    }
    const misplaced = (k: string, value: ConfigValue<unknown> | undefined, wants: string) => {
      if (value === undefined) return;
      errors.push(
        `${value.at}: ${key(k)} is only used with type = "${wants}" (type is "${type.value}")`,
      );
    };
    const rejected = (k: string) => merged.invalid.has(pathKey(["providers", "mcp", name, k]));
    if (type.value === "stdio") {
      if (settings.command === undefined && !rejected("command")) {
        errors.push(
          `${type.at}: ${key("type")} = "stdio" needs command ` +
            '(the program to run, e.g. "github-mcp-server")',
        );
      }
      misplaced("url", settings.url, "http");
      misplaced("headers", settings.headers.values().next().value, "http");
    } else {
      if (settings.url === undefined && !rejected("url")) {
        errors.push(`${type.at}: ${key("type")} = "http" needs url (e.g. ${URL_EXAMPLE})`);
      }
      misplaced("command", settings.command, "stdio");
      misplaced("arguments", settings.arguments, "stdio");
      misplaced("environment", settings.environment.values().next().value, "stdio");
      misplaced("pass_env", settings.pass_env, "stdio");
    }
  }
  return errors;
}
