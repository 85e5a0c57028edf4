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
import { unknownToolWarnings } from "../config/unknown_tool_warnings.ts";
import { listConfiguredTools } from "../runtime/list_configured_tools.ts";
import { plural } from "../terminal/plural.ts";
import type { Command } from "./command.ts";
import type { CommandIo } from "./command_io.ts";
import { CONFIG_FLAGS, configOptionsFromFlags, MODEL_FLAG, OUTPUT_FLAGS } from "./_common_flags.ts";
import type { ParsedFlags } from "./_flags.ts";
import type { TruncationStrategy } from "../size/truncation.ts";
import { sanitizeForTerminal } from "../terminal/sanitize.ts";
import { printConfigProblems } from "./_config_problems.ts";
import { reachStore, type StoreReach, storeSection } from "./_store_section.ts";
import { modelSection } from "./_model_section.ts";
import { providersSection } from "./_providers_section.ts";
import { quoteArg } from "./_quote_arg.ts";
import { safeTable } from "./_safe_table.ts";
import { serveSection } from "./_serve_section.ts";
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

function shortString(text: string): string {
  const quoted = JSON.stringify(text);
  return quoted.length <= 60 ? quoted : `${quoted.slice(0, 58)}…"`;
}

const SINGLE_LINE = { singleLine: true } as const;
