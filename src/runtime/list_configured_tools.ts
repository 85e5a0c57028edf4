/**
 * What the configured tool sources provide, found without running a turn:
 * the builtin tools and local entries are known from the configuration
 * alone; each stdio upstream server is started just long enough to list its
 * tools (all at once, each within a short deadline) and stopped again. A
 * server that cannot be started, does not answer in time, or is of a type
 * this runtime cannot reach yet is reported as not consulted, with why.
 * `config check` uses this to warn about configured tools no source
 * provides.
 *
 * @module
 */

import type { SpillwayConfig } from "../config/spillway_config.ts";
import type { ToolAvailability } from "../config/unknown_tool_warnings.ts";
import { BUILTIN_TOOLS } from "../service/builtin/builtin_tools.ts";
import type { ToolSource } from "../service/tool_source.ts";
import { upstreamToolSource } from "./tool_sources_from_config.ts";

/**
 * How long one upstream server may take to start and list its tools: 10 s.
 * Long enough for a server that is already installed; a first `npx` or
 * `deno run` download may take longer and is then reported as not consulted.
 */
export const LIST_TOOLS_TIMEOUT_MS = 10_000;

/** Options of {@linkcode listConfiguredTools}. */
export interface ListConfiguredToolsOptions {
  /** The directory upstream servers start in. */
  readonly cwd: string;
  /** Deadline per upstream server, in milliseconds. Default {@linkcode LIST_TOOLS_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
}

/**
 * Lists the tools the configuration's sources provide; no server is left
 * running when it resolves.
 *
 * @param config the configuration whose sources are listed
 * @param options where servers start, and how long each may take
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
  const timeoutMs = options.timeoutMs ?? LIST_TOOLS_TIMEOUT_MS;
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
  const listed = await Promise.all(
    config.mcpProviders().map(async (provider) => {
      const name = `mcp.${provider.name}`;
      try {
        const source = upstreamToolSource(provider, { cwd: options.cwd, upstreamStderr: "null" });
        return { name, tools: await listWithin(source, timeoutMs) };
      } catch (error) {
        return { name, reason: error instanceof Error ? error.message : String(error) };
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

/** The source's tool names, within `timeoutMs`; the source is closed either way. */
async function listWithin(source: ToolSource, timeoutMs: number): Promise<string[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const listing = source.list();
  listing.catch(() => {}); // a late failure after the deadline is not news
  try {
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `upstream server ${source.name} did not list its tools within ${timeoutMs / 1000} s`,
            ),
          ),
        timeoutMs,
      );
    });
    const definitions = await Promise.race([listing, deadline]);
    return definitions.map((definition) => definition.name);
  } finally {
    clearTimeout(timer);
    await source.close();
  }
}
