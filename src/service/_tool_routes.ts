/**
 * Works out which exported tool name runs which tool of which source: every
 * source tool under its own name, except where the config renames it.
 *
 * @module
 */

import { closestName } from "../config/closest_name.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import type { ToolDefinition, ToolSource } from "./tool_source.ts";

/** How many of a source's tool names a message lists when none is close to the one asked for. */
const LISTED_NAMES = 10;

/** Where an exported tool name points: a source (by name) and its tool. */
export interface ToolRoute {
  /** The source's name (`"builtin"`, `"local"`, `"mcp.github"`). */
  readonly source: string;
  /** The tool's name inside that source. */
  readonly sourceTool: string;
  /**
   * What asked for the route, as a message names it: the config entry that
   * renames the tool, e.g. `config.toml:7: conversation.tools.say.source =
   * "mcp.demo.ech"`. Default: `` tool `<exported name>` ``.
   */
  readonly origin?: string;
}

/** A resolved route: the source itself and the definition under its exported name. */
export interface ResolvedRoute {
  readonly source: ToolSource;
  readonly sourceTool: string;
  readonly definition: ToolDefinition;
}

/**
 * Builds the exported tool table. A renamed tool is exported only under its
 * new name; two sources exporting the same name without a rename, an entry
 * naming an unknown source or tool, and duplicate source names are errors.
 *
 * @throws {SpillwayError} `config_invalid` when a route names a tool its source does not
 *   list (the one problem is its message and `details.errors`)
 * @throws {TypeError} naming the conflicting tool or source
 */
export function resolveToolRoutes(
  listed: readonly (readonly [ToolSource, readonly ToolDefinition[]])[],
  toolNames: Readonly<Record<string, ToolRoute>>,
): Map<string, ResolvedRoute> {
  const bySource = new Map<string, readonly [ToolSource, Map<string, ToolDefinition>]>();
  for (const [source, definitions] of listed) {
    if (bySource.has(source.name)) {
      throw new TypeError(`two tool sources are named \`${source.name}\`: names must be unique`);
    }
    bySource.set(source.name, [source, new Map(definitions.map((d) => [d.name, d]))]);
  }
  const routes = new Map<string, ResolvedRoute>();
  const renamed = new Set<string>();
  for (const [exported, route] of Object.entries(toolNames)) {
    const found = bySource.get(route.source);
    if (found === undefined) {
      throw new TypeError(
        `tool \`${exported}\` names the source \`${route.source}\`, which does not exist ` +
          `(sources: ${[...bySource.keys()].join(", ") || "none"})`,
      );
    }
    const [source, definitions] = found;
    const definition = definitions.get(route.sourceTool);
    if (definition === undefined) throw unlistedTool(exported, route, [...definitions.keys()]);
    if (exported !== route.sourceTool) renamed.add(`${route.source}\0${route.sourceTool}`);
    routes.set(exported, {
      source,
      sourceTool: route.sourceTool,
      definition: { ...definition, name: exported },
    });
  }
  const implicitOwner = new Map<string, string>();
  for (const [name, [source, definitions]] of bySource) {
    for (const definition of definitions.values()) {
      // An explicit entry of the same name wins over a tool's own name.
      if (Object.hasOwn(toolNames, definition.name)) continue;
      if (renamed.has(`${name}\0${definition.name}`)) continue;
      const owner = implicitOwner.get(definition.name);
      if (owner !== undefined) {
        throw new TypeError(
          `tool \`${definition.name}\` is exported by both \`${owner}\` and \`${name}\`: ` +
            `rename one of them in the config`,
        );
      }
      implicitOwner.set(definition.name, name);
      routes.set(definition.name, { source, sourceTool: definition.name, definition });
    }
  }
  return routes;
}

/**
 * A route to a tool its source does not list (a typo in the config, or a
 * server that changed its tools), naming the closest tool the source lists.
 */
function unlistedTool(exported: string, route: ToolRoute, listed: readonly string[]): Error {
  const close = closestName(route.sourceTool, listed);
  const names = [...listed].sort();
  const hint = close !== undefined
    ? `did you mean ${close}?`
    : names.length === 0
    ? "it lists no tools"
    : `it lists ${names.slice(0, LISTED_NAMES).join(", ")}${
      names.length > LISTED_NAMES ? ` and ${names.length - LISTED_NAMES} more` : ""
    }`;
  const message = `${route.origin ?? `tool \`${exported}\``} names tool ${route.sourceTool}, ` +
    `which ${route.source} does not list (${hint})`;
  return new SpillwayError("config_invalid", message, {
    errors: [message],
    tool: exported,
    source: route.source,
    sourceTool: route.sourceTool,
    ...(close === undefined ? {} : { suggestion: close }),
  });
}
