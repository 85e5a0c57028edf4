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
 * @throws {SpillwayError} `config_invalid` when routes name tools their sources do not
 *   list, or two sources list a tool of the same name that no route renames (each
 *   problem a line of `details.errors`)
 * @throws {TypeError} when a route names a source that does not exist, or two sources
 *   share a name
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
  const problems: string[] = [];
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
    if (definition === undefined) {
      problems.push(unlistedTool(exported, route, [...definitions.keys()]));
      continue;
    }
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
        problems.push(sharedName(definition.name, owner, name));
        continue;
      }
      implicitOwner.set(definition.name, name);
      routes.set(definition.name, { source, sourceTool: definition.name, definition });
    }
  }
  if (problems.length > 0) {
    throw new SpillwayError("config_invalid", problems.join("\n"), { errors: problems });
  }
  return routes;
}

/**
 * A route to a tool its source does not list (a typo in the config, or a
 * server that changed its tools), naming the closest tool the source lists.
 */
function unlistedTool(exported: string, route: ToolRoute, listed: readonly string[]): string {
  const close = closestName(route.sourceTool, listed);
  const names = [...listed].sort();
  const hint = close !== undefined
    ? `did you mean ${close}?`
    : names.length === 0
    ? "it lists no tools"
    : `it lists ${names.slice(0, LISTED_NAMES).join(", ")}${
      names.length > LISTED_NAMES ? ` and ${names.length - LISTED_NAMES} more` : ""
    }`;
  return `${route.origin ?? `tool \`${exported}\``} names tool ${route.sourceTool}, ` +
    `which ${route.source} does not list (${hint})`;
}

/**
 * Two sources list a tool of the same name (two instances of one server, a
 * local tool named like a builtin one): say which, and how to rename one.
 */
function sharedName(tool: string, first: string, second: string): string {
  const server = [second, first].find((source) => source.startsWith("mcp."));
  const how = server === undefined
    ? (first === "local" || second === "local"
      ? "give the local tool another name"
      : "give one of them another name")
    : `rename one with an entry such as [conversation.tools.${
      server.slice(4)
    }_${tool}] source = "${server}.${tool}"`;
  return `${first} and ${second} both list a tool named ${tool}: ${how}`;
}
