/**
 * What the configured tool sources provide, found without running a turn:
 * the builtin tools and local entries are known from the configuration
 * alone; each stdio upstream server is started just long enough to list its
 * tools (all at once, each within its own `startup_timeout`, as when a run
 * starts it) and stopped again. A server that cannot be started, does not
 * answer in time, or is of a type this runtime cannot reach yet is reported
 * as not consulted, with why. `config check` uses this to report what would
 * keep `query` and `serve` from starting (the same route problems, worded the
 * same), and to warn about configured tools no source provides.
 *
 * @module
 */

import type { SpillwayConfig } from "../config/spillway_config.ts";
import type { ToolAvailability } from "../config/unknown_tool_warnings.ts";
import { BUILTIN_TOOLS } from "../service/builtin/builtin_tools.ts";
import { planToolRoutes } from "../service/tool_routes.ts";
import { spillFromConfig } from "./spill_from_config.ts";
import { toolRoutesFromConfig, upstreamToolSource } from "./tool_sources_from_config.ts";

/** What {@linkcode listConfiguredTools} found. */
export interface ConfiguredTools extends Required<ToolAvailability> {
  /**
   * What would keep `query` and `serve` from starting, as they word it: a
   * route to a tool its server does not list, a tool name two sources list
   * (a local tool named like a builtin one, two servers). Only sources
   * consulted are checked.
   */
  readonly problems: readonly string[];
}

/** Options of {@linkcode listConfiguredTools}. */
export interface ListConfiguredToolsOptions {
  /** The directory upstream servers start in. */
  readonly cwd: string;
}

/**
 * Lists the tools the configuration's sources provide; no server is left
 * running when it resolves.
 *
 * @param config the configuration whose sources are listed
 * @param options where servers start
 * @returns the exported tool names, each consulted source's own tools, the sources not
 *   consulted, and the problems the runtime would refuse to start with
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseConfig } from "../config/parse_config.ts";
 * import { listConfiguredTools } from "./list_configured_tools.ts";
 * const config = parseConfig('[conversation.tools.t]\nsource = "local"\ncommand = ["true"]\n');
 * const found = await listConfiguredTools(config, { cwd: "." });
 * assert.deepEqual(found.tools, ["fs_list_files", "fs_read_file", "t"]);
 * ```
 */
export async function listConfiguredTools(
  config: SpillwayConfig,
  options: ListConfiguredToolsOptions,
): Promise<ConfiguredTools> {
  // Only the names of the spill tools are used: nothing is written.
  const spillTools = spillFromConfig(config, options.cwd)?.tools ?? [];
  const sourceTools = new Map<string, readonly string[]>([
    ["builtin", [...BUILTIN_TOOLS, ...spillTools].map((tool) => tool.name)],
  ]);
  const notConsulted: { source: string; reason: string }[] = [];
  const local = config.toolNames().filter((name) => config.tool(name).source()?.kind === "local");
  sourceTools.set("local", local);
  const listed = await Promise.all(
    config.mcpProviders().map(async (provider) => {
      const name = `mcp.${provider.name}`;
      try {
        const source = upstreamToolSource(provider, { cwd: options.cwd, upstreamStderr: "null" });
        try {
          // The source gives up, and stops the server, after its startup_timeout.
          return { name, tools: (await source.list()).map((tool) => tool.name) };
        } finally {
          await source.close();
        }
      } catch (error) {
        return { name, reason: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
  for (const found of listed) {
    if (found.tools !== undefined) sourceTools.set(found.name, found.tools);
    else notConsulted.push({ source: found.name, reason: found.reason ?? "" });
  }
  // The table the runtime would export, from the sources that could be asked.
  const plan = planToolRoutes(sourceTools, toolRoutesFromConfig(config));
  return { tools: [...plan.routes.keys()], sourceTools, notConsulted, problems: plan.problems };
}
