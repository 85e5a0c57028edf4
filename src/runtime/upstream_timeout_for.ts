/**
 * How long a call of an upstream MCP server's tool may run, from the
 * configuration: the same rule as for every tool, applied to the names the
 * tool is exported under.
 *
 * @module
 */

import type { SpillwayConfig } from "../config/spillway_config.ts";

/**
 * The timeout (ms) of each tool of `providers.mcp.<server>`, by the
 * server's name for the tool. A tool that entries name with `source =
 * "mcp.<server>.<tool>"` (a rename) takes their timeout; two entries naming
 * one tool give it the longer of theirs (a call cannot know which name it
 * came by). Any other tool is exported under its own name and takes that
 * name's timeout: its entry's, else the `'*'` entry's, else the built-in
 * default (120 s), as a local tool does.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseConfig } from "../config/parse_config.ts";
 * import { upstreamTimeoutFor } from "./upstream_timeout_for.ts";
 * const config = parseConfig(
 *   `[providers.mcp.lint]\ntype = "stdio"\ncommand = "lint-server"\n` +
 *     `[conversation.tools.'*']\ntimeout = 30\n` +
 *     `[conversation.tools.slow_lint]\nsource = "mcp.lint.lint"\ntimeout = 600\n`,
 * );
 * const timeoutFor = upstreamTimeoutFor(config, "lint");
 * assert.equal(timeoutFor("lint"), 600_000);
 * assert.equal(timeoutFor("format"), 30_000);
 * ```
 *
 * @param config the configuration
 * @param server the `<server>` of `providers.mcp.<server>`
 * @returns the timeout in ms of a tool, by the server's name for it
 */
export function upstreamTimeoutFor(
  config: SpillwayConfig,
  server: string,
): (tool: string) => number {
  const renamed = new Map<string, number>();
  for (const name of config.toolNames()) {
    const tool = config.tool(name);
    const source = tool.source();
    if (source?.kind !== "mcp" || source.server !== server) continue;
    renamed.set(source.tool, Math.max(renamed.get(source.tool) ?? 0, tool.timeoutMs()));
  }
  return (tool) => renamed.get(tool) ?? config.tool(tool).timeoutMs();
}
