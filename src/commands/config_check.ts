/**
 * `spillway config check`: loads the layered configuration the way every
 * other command will, and shows what it resolved to: which layers were read,
 * each tool's effective settings and where each value came from, and the
 * upstream MCP servers. An invalid configuration prints every problem and
 * exits 1, so this is also the command to run in CI before a deploy.
 *
 * @module
 */

import { loadConfig } from "../config/load_config.ts";
import type { SpillwayConfig } from "../config/spillway_config.ts";
import type { ToolConfigWithDefaults } from "../config/tool_config_with_defaults.ts";
import {
  TOOL_CONFIG_KEY_NAMES,
  TOOL_CONFIG_KEYS,
  type ToolConfigKey,
} from "../config/tool_settings.ts";
import type { McpProviderConfig } from "../config/mcp_provider_config.ts";
import { PUBLIC_BASE_URLS } from "../config/llm_provider_config.ts";
import { unknownToolWarnings } from "../config/unknown_tool_warnings.ts";
import { listConfiguredTools } from "../runtime/list_configured_tools.ts";
import { plural } from "../terminal/plural.ts";
import type { Command } from "./command.ts";
import type { CommandIo } from "./command_io.ts";
import { CONFIG_FLAGS, configOptionsFromFlags, MODEL_FLAG, OUTPUT_FLAGS } from "./_common_flags.ts";
import type { ParsedFlags } from "./_flags.ts";
import { formatTable } from "./_table.ts";
import type { TruncationStrategy } from "../size/truncation.ts";
import { sanitizeForTerminal } from "../terminal/sanitize.ts";
import { printConfigProblems } from "./_config_problems.ts";
import { reachStore, type StoreReach, storeSection } from "./_store_section.ts";
import { resolve } from "node:path";

/** How each `truncation` is shown: the json cuts say what they do with text that is not JSON. */
const TRUNCATION_SHOWN: Readonly<Record<TruncationStrategy, string>> = {
  head: "head",
  tail: "tail",
  head_tail: "head_tail",
  json: "json (not one JSON value: head)",
  auto: "auto (a JSON object or array: json; else head)",
};

/** `spillway config check`. */
export const configCheckCommand: Command = {
  name: "config check",
  summary: "validate the layered configuration and show what it resolves to",
  usage:
    "spillway config check [--workspace DIR] [--config FILE]... [--cfg KEY=VALUE]... [--model PROVIDER/MODEL]",
  description: `Reads the configuration layers in order (later layers win):
  built-in defaults, $XDG_CONFIG_HOME/spillway/config.toml (or
  ~/.config/spillway/config.toml), <workspace>/config.toml, each --config
  FILE, then each --cfg KEY=VALUE, then --model PROVIDER/MODEL, which
  sets assistant.model.id as it does for query: the check is then of the
  configuration query --model would run with.

Prints the layers, every configured tool (and the '*' defaults) with its
effective settings and the layer each came from, and the MCP servers.

Warns (on stderr, one line each) about tool entries no source provides,
with the closest existing name: a misspelled entry would apply to nothing.
To know their tools, each stdio MCP server is started just long enough to
list them (all at once, each within its startup_timeout) and stopped
again; a server that cannot be consulted is named, and the entries only it
could provide are not checked. Warnings do not change the exit code.

With [store] set, shows the store it names and, for type = "postgres",
whether the database can be reached (connecting, and creating or updating
spillway's tables): the password is never shown, only whether its variable
is set.

Exits 0 when the configuration is valid, 1 when it is not (every problem
is printed to stderr) or its store cannot be reached, 2 on a usage error.`,
  flags: [...CONFIG_FLAGS, MODEL_FLAG, ...OUTPUT_FLAGS],
  run,
};

async function run(flags: ParsedFlags, io: CommandIo): Promise<number> {
  let config: SpillwayConfig;
  try {
    config = await loadConfig(configOptionsFromFlags(flags, io));
  } catch (error) {
    if (printConfigProblems(error, io)) return 1;
    throw error;
  }
  const options = configOptionsFromFlags(flags, io);
  let reach: StoreReach;
  try {
    reach = await reachStore(config, resolve(io.cwd, options.workspace ?? "."), io.env);
  } catch (error) {
    if (printConfigProblems(error, io)) return 1;
    throw error;
  }
  const available = await listConfiguredTools(config, { cwd: io.cwd });
  if (!flags.boolean("quiet")) {
    io.stdout(renderReport(config, io, flags.count("verbose") > 0, reach));
  }
  for (const warning of unknownToolWarnings(config, available)) {
    io.stderr(`${sanitizeForTerminal(`warning: ${warning}`, SINGLE_LINE)}\n`);
  }
  if (!reach.reached) {
    io.stderr(
      sanitizeForTerminal(
        `error: the store ${reach.where} cannot be reached: ${reach.reason}`,
        SINGLE_LINE,
      ) + "\n",
    );
    return 1;
  }
  return 0;
}

/** The report printed for a valid config. */
function renderReport(
  config: SpillwayConfig,
  io: CommandIo,
  verbose: boolean,
  reach: StoreReach,
): string {
  const home = io.env["HOME"];
  const shorten = (path: string) =>
    home !== undefined && home !== "" && path.startsWith(`${home}/`)
      ? `~${path.slice(home.length)}`
      : path;
  const sections = [
    layersSection(config, shorten),
    toolsSection(config, verbose, shorten),
    modelSection(config, io.env, shorten),
    providersSection(config.mcpProviders(), shorten),
    ...serveSection(config, io.env, shorten),
    ...storeSection(config, io.env, shorten, reach),
  ];
  const tools = config.toolNames().length;
  const servers = config.mcpProviders().length;
  const summary = `The configuration is valid: ${plural(tools, "tool")} configured, ` +
    `${plural(servers, "MCP server")}.\n`;
  return sections.join("\n") + "\n" + summary;
}

function layersSection(config: SpillwayConfig, shorten: (path: string) => string): string {
  const rows = config.sources.map((source) => {
    switch (source.kind) {
      case "default":
        return ["default", "built-in defaults"];
      case "cfg":
        return ["--cfg", JSON.stringify(source.assignment ?? "").slice(1, -1)];
      case "file":
        return ["--config", shorten(source.label)];
      case "model":
        return ["--model", JSON.stringify(source.assignment ?? "").slice(1, -1)];
      default:
        return [
          source.kind,
          source.present ? shorten(source.label) : `${shorten(source.label)} (absent)`,
        ];
    }
  });
  return `Layers, lowest first (later layers win):\n${safeTable(rows)}`;
}

function toolsSection(
  config: SpillwayConfig,
  verbose: boolean,
  shorten: (path: string) => string,
): string {
  const rows: string[][] = [["TOOL", "SETTING", "VALUE", "FROM"]];
  for (const name of ["*", ...config.toolNames()]) {
    const tool = config.tool(name);
    const keys = keysToShow(tool, verbose);
    keys.forEach((key, i) => {
      const label = i === 0 ? (name === "*" ? "'*'" : name) : "";
      rows.push([label, key, showValue(tool, key), showFrom(tool, key, shorten)]);
    });
  }
  const note = config.toolNames().length === 0
    ? "  (no tools configured: every tool gets the '*' settings)\n"
    : "";
  return `Tools (a tool without its own setting inherits '*'):\n${safeTable(rows)}${note}`;
}

/** The keys shown for `tool`, as `TOOL_CONFIG_KEYS` says (`-v`: all with a value). */
function keysToShow(tool: ToolConfigWithDefaults, verbose: boolean): ToolConfigKey[] {
  const isStar = tool.name === "*";
  const local = tool.source()?.kind === "local";
  const setHere = (key: ToolConfigKey) => {
    if (!isStar) return tool.hasOwn(key);
    const origin = tool.origin(key);
    return origin !== undefined && origin !== "default";
  };
  return TOOL_CONFIG_KEY_NAMES.filter((key) => {
    const shown = TOOL_CONFIG_KEYS[key].shown;
    return shown === "always" || setHere(key) || (shown === "when set or local" && local) ||
      (verbose && tool.resolved(key) !== undefined);
  });
}

function showValue(tool: ToolConfigWithDefaults, key: ToolConfigKey): string {
  switch (key) {
    case "source":
      return tool.source()?.text ?? "";
    case "command":
      return (tool.command() ?? []).map(quoteArg).join(" ");
    case "pass_env":
      return tool.passEnv().join(", ");
    case "timeout":
      return `${tool.timeoutMs() / 1000} s`;
    case "run":
      return tool.run();
    case "result":
      return tool.result();
    case "size_threshold": {
      const text = tool.sizeThreshold().toString();
      return /^\d+$/.test(text) ? `${text} bytes` : text;
    }
    case "truncation":
      return TRUNCATION_SHOWN[tool.truncation().strategy];
    case "spill":
      return String(tool.spill());
    case "truncation_split": {
      const head = tool.truncation().headPercent;
      return `${head}/${100 - head}`;
    }
    case "style.inline_results": {
      const lines = tool.inlineResults();
      return typeof lines === "number" ? plural(lines, "line") : lines;
    }
    case "style.results_file_link":
      return tool.resultsFileLink();
    case "cancellation_response":
      return shortString(tool.cancellationResponse());
    case "description":
      return shortString(tool.description() ?? "");
    default: {
      // A key added to TOOL_CONFIG_KEYS without a case here: its value as JSON.
      const value = tool.resolved(key)?.value;
      return value === undefined ? "" : JSON.stringify(value);
    }
  }
}

function showFrom(
  tool: ToolConfigWithDefaults,
  key: ToolConfigKey,
  shorten: (path: string) => string,
): string {
  const value = tool.resolved(key);
  if (value === undefined || value.origin === "default") return "default";
  const place = value.origin === "--cfg" ? "--cfg" : shorten(value.origin);
  return tool.name === "*" || tool.hasOwn(key) ? place : `${place} ('*')`;
}

/**
 * The model and its API: where it is reached and which variable holds the
 * key. Only whether that variable is set is shown, never its value.
 */
function modelSection(
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

/**
 * `[serve]`, when any of it is set (most configurations never serve). Like
 * the model's key, only whether each token variable is set is shown: the
 * default client's and every `[serve.tokens.NAME]` client's.
 */
function serveSection(
  config: SpillwayConfig,
  env: Readonly<Record<string, string | undefined>>,
  shorten: (path: string) => string,
): string[] {
  const {
    clientCeiling,
    clientCeilings,
    tokenEnv,
    tokens,
    allowedOrigins,
    maxRequestSize,
    sessionIdleTimeout,
    maxSessions,
  } = config.serve();
  const settings = [
    clientCeiling,
    tokenEnv,
    allowedOrigins,
    maxRequestSize,
    sessionIdleTimeout,
    maxSessions,
    ...clientCeilings.values(),
    ...tokens.values(),
  ];
  if (settings.every((setting) => setting === undefined || setting.origin === "default")) return [];
  const from = (origin: string) =>
    origin === "default" || origin.startsWith("--") ? origin : shorten(origin);
  const rows = [["SETTING", "VALUE", "FROM"]];
  rows.push([
    "serve.client_ceiling",
    clientCeiling?.value.toString() ?? "none",
    from(clientCeiling?.origin ?? "default"),
  ]);
  for (const [name, ceiling] of clientCeilings) {
    rows.push([
      `serve.client_ceilings.${/^[A-Za-z0-9_-]+$/.test(name) ? name : JSON.stringify(name)}`,
      ceiling.value.toString(),
      from(ceiling.origin),
    ]);
  }
  const set = (variable: string) => (env[variable] ?? "") !== "" ? "set" : "not set";
  rows.push([
    "serve.token_env",
    `${tokenEnv.value} (${set(tokenEnv.value)})`,
    from(tokenEnv.origin),
  ]);
  // Each client's own token: which variable holds it, and whether it is set (never its value).
  for (const [client, variable] of tokens) {
    rows.push([
      `serve.tokens.${client}.env`,
      `${variable.value} (${set(variable.value)})`,
      from(variable.origin),
    ]);
  }
  rows.push([
    "serve.allowed_origins",
    allowedOrigins.value.length === 0 ? "none" : allowedOrigins.value.join(", "),
    from(allowedOrigins.origin),
  ]);
  rows.push([
    "serve.max_request_size",
    maxRequestSize.value.toString(),
    from(maxRequestSize.origin),
  ]);
  rows.push([
    "serve.session_idle_timeout",
    sessionIdleTimeout.value.toString(),
    from(sessionIdleTimeout.origin),
  ]);
  rows.push(["serve.max_sessions", String(maxSessions.value), from(maxSessions.origin)]);
  return [`Serve:\n${formatTable(rows)}`];
}

function providersSection(
  providers: readonly McpProviderConfig[],
  shorten: (path: string) => string,
): string {
  if (providers.length === 0) return "MCP servers (providers.mcp): none\n";
  const rows = [["NAME", "TYPE", "TARGET", "FROM"]];
  for (const provider of providers) {
    const from = provider.origins["type"] ?? "";
    let target: string;
    if (provider.type === "http") {
      target = provider.url;
    } else {
      target = [provider.command, ...provider.arguments].map(quoteArg).join(" ");
      // Names only: environment values are often tokens.
      const names = Object.keys(provider.environment);
      if (names.length > 0) target += `  (env: ${names.join(", ")})`;
      if (provider.passEnv.length > 0) target += `  (pass_env: ${provider.passEnv.join(", ")})`;
    }
    if (provider.origins["startup_timeout"] !== undefined) {
      target += `  (startup_timeout: ${provider.startupTimeoutMs / 1000} s)`;
    }
    rows.push([provider.name, provider.type, target, from === "--cfg" ? from : shorten(from)]);
  }
  return `MCP servers (providers.mcp):\n${safeTable(rows)}`;
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

function shortString(text: string): string {
  const quoted = JSON.stringify(text);
  return quoted.length <= 60 ? quoted : `${quoted.slice(0, 58)}…"`;
}

/**
 * Every table of the report passes here. Cells hold outside text (tool and
 * server names, commands, paths, config values): each is made safe for the
 * terminal and kept on one line before the columns are measured.
 */
function safeTable(rows: readonly (readonly string[])[]): string {
  return formatTable(rows.map((row) => row.map((cell) => sanitizeForTerminal(cell, SINGLE_LINE))));
}

const SINGLE_LINE = { singleLine: true } as const;
