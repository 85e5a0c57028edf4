/**
 * What the configured tool sources provide, found without running a turn:
 * the builtin tools and local entries are known from the configuration
 * alone; each stdio upstream server is started just long enough to list its
 * tools (all at once, each within its own `startup_timeout`, as when a run
 * starts it) and stopped again. A server that cannot be started, does not
 * answer in time, or is of a type this runtime cannot reach yet is reported
 * as not consulted, with why. `config check` uses this to warn about
 * configured tools no source provides.
 *
 * @module
 */

import type { SpillwayConfig } from "../config/spillway_config.ts";
import type { ToolAvailability } from "../config/unknown_tool_warnings.ts";
import { BUILTIN_TOOLS } from "../service/builtin/builtin_tools.ts";
import type { TimerClock } from "../service/timer_clock.ts";
import { upstreamToolSource } from "./tool_sources_from_config.ts";
import { secretVariables } from "../config/secret_variables.ts";
import { reasonText } from "../errors/reason_text.ts";

/** Options of {@linkcode listConfiguredTools}. */
export interface ListConfiguredToolsOptions {
  /** The directory upstream servers start in. */
  readonly cwd: string;
  /** The clock the servers' start-up timeouts run on. Default: the real one. */
  readonly clock?: TimerClock;
}

/**
 * Lists the tools the configuration's sources provide; no server is left
 * running when it resolves.
 *
 * @param config the configuration whose sources are listed
 * @param options where servers start
 * @returns the tool names, each consulted source's own tools, and the sources not consulted
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
): Promise<Required<ToolAvailability>> {
  const sourceTools = new Map<string, readonly string[]>([
    ["builtin", BUILTIN_TOOLS.map((tool) => tool.name)],
  ]);
  const notConsulted: { source: string; reason: string }[] = [];
  const local: string[] = [];
  const routed: [name: string, server: string, tool: string][] = [];
  for (const name of config.toolNames()) {
    const source = config.tool(name).source();
    if (source?.kind === "local") local.push(name);
    if (source?.kind === "mcp") routed.push([name, `mcp.${source.server}`, source.tool]);
  }
  sourceTools.set("local", local);
  const secrets = secretVariables(config).map((secret) => secret.name);
  const listed = await Promise.all(
    config.mcpProviders().map(async (provider) => {
      const name = `mcp.${provider.name}`;
      try {
        const source = upstreamToolSource(provider, {
          cwd: options.cwd,
          upstreamStderr: "null",
          secrets,
          ...(options.clock === undefined ? {} : { clock: options.clock }),
        });
        try {
          // The source gives up, and stops the server, after its startup_timeout.
          return { name, tools: (await source.list()).map((tool) => tool.name) };
        } finally {
          await source.close();
        }
      } catch (error) {
        return { name, reason: reasonText(error) };
      }
    }),
  );
  for (const found of listed) {
    if (found.tools !== undefined) sourceTools.set(found.name, found.tools);
    else notConsulted.push({ source: found.name, reason: found.reason ?? "" });
  }
  // Every source's tools under their own names, then the entries that pick one under theirs.
  const tools = new Set([...sourceTools.values()].flat());
  for (const [name, server, tool] of routed) {
    if (sourceTools.get(server)?.includes(tool)) tools.add(name);
  }
  return { tools: [...tools], sourceTools, notConsulted };
}
