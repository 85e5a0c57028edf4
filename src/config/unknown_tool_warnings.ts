/**
 * A `[conversation.tools.<name>]` entry applies to the tool of that name; an
 * entry for a tool no source provides applies to nothing, so a typo in a
 * tool name would quietly drop its `size_threshold`. `query` and
 * `config check` (and any host that starts the tool sources) compare the
 * entries with the tools the sources list and warn, with the closest
 * existing name. Warnings, not errors: the run continues.
 *
 * @module
 */

import { closestName } from "./closest_name.ts";
import { formatKeyPath } from "./_key_path.ts";
import type { SpillwayConfig } from "./spillway_config.ts";
import { TOOL_CONFIG_KEY_NAMES } from "./tool_settings.ts";

/** What the tool sources were found to provide. */
export interface ToolAvailability {
  /** Every tool name callers are offered (after renames). */
  readonly tools: readonly string[];
  /**
   * The tools each consulted source lists under its own names, by source
   * name (`"mcp.github"`), for entries that pick a source's tool
   * (`source = "mcp.github.search"`). Default: none known, and such entries
   * are checked against `tools` like the others.
   */
  readonly sourceTools?: ReadonlyMap<string, readonly string[]>;
  /**
   * Sources whose tools are unknown (a server that could not be started),
   * each with why, as a sentence naming it. Entries that only such a source
   * could provide are not reported as unknown (unless they look like a typo
   * of a known tool); these sources are, with the entries left unchecked.
   * Default none.
   */
  readonly notConsulted?: readonly { readonly source: string; readonly reason: string }[];
}

/**
 * One line per configured tool entry that no source provides (and per
 * source that could not be consulted), without a `warning: ` prefix.
 *
 * @param config the configuration whose `conversation.tools` entries are checked
 * @param available what the tool sources provide
 * @returns the warnings, in configuration order; empty when every entry matches a tool
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseConfig } from "./parse_config.ts";
 * import { unknownToolWarnings } from "./unknown_tool_warnings.ts";
 * const config = parseConfig('[conversation.tools.fs_lst_files]\nsize_threshold = "1MB"\n', "c.toml");
 * assert.deepEqual(unknownToolWarnings(config, { tools: ["fs_list_files", "fs_read_file"] }), [
 *   "conversation.tools.fs_lst_files (c.toml:2): no source provides a tool named fs_lst_files, " +
 *   "so these settings are never used (did you mean fs_list_files?)",
 * ]);
 * ```
 */
export function unknownToolWarnings(
  config: SpillwayConfig,
  available: ToolAvailability,
): string[] {
  const tools = new Set(available.tools);
  const notConsulted = available.notConsulted ?? [];
  const unconsulted = new Set(notConsulted.map(({ source }) => source));
  const unchecked = new Map(notConsulted.map(({ source }) => [source, [] as string[]]));
  const warnings: string[] = [];
  for (const name of config.toolNames()) {
    if (tools.has(name)) continue;
    const tool = config.tool(name);
    const source = tool.source();
    if (source?.kind === "local") continue; // a local entry is its own source
    const entry = describeEntry(name, config);
    if (source?.kind === "mcp") {
      const server = `mcp.${source.server}`;
      if (unconsulted.has(server)) {
        unchecked.get(server)?.push(name);
        continue;
      }
      const listed = available.sourceTools?.get(server);
      if (listed !== undefined) {
        if (listed.includes(source.tool)) continue;
        // The runtime cannot route the entry: query and serve refuse to start with it.
        warnings.push(
          `${entry}: source = "${source.text}", but providers.mcp.${source.server} lists no ` +
            `tool named ${source.tool}${suggestion(source.tool, listed)}, ` +
            "so query and serve will not start",
        );
        continue;
      }
    } else if (source === undefined && unconsulted.size > 0) {
      // It may be a tool of a server nobody could ask, unless it looks like a typo of a known one.
      const close = suggestion(name, available.tools);
      if (close === "") {
        for (const list of unchecked.values()) list.push(name);
      } else {
        warnings.push(`${entry}: no source consulted provides a tool named ${name}${close}`);
      }
      continue;
    }
    warnings.push(
      `${entry}: no source provides a tool named ${name}, so these settings are never used` +
        suggestion(name, available.tools),
    );
  }
  for (const { source, reason } of notConsulted) {
    const entries = unchecked.get(source) ?? [];
    warnings.push(
      entries.length === 0
        ? `${reason}; its tools were not listed`
        : `${reason}; its tools were not listed, so these entries were not checked: ${
          entries.join(", ")
        }`,
    );
  }
  return warnings;
}

/** `conversation.tools.name (file:line)`: the entry's key and where it is first set. */
function describeEntry(name: string, config: SpillwayConfig): string {
  const tool = config.tool(name);
  const key = TOOL_CONFIG_KEY_NAMES.find((k) => tool.hasOwn(k));
  const at = key === undefined ? undefined : tool.resolved(key)?.at;
  const path = formatKeyPath(["conversation", "tools", name]);
  return at === undefined ? path : `${path} (${at})`;
}

function suggestion(name: string, candidates: readonly string[]): string {
  const close = closestName(name, candidates);
  return close === undefined ? "" : ` (did you mean ${close}?)`;
}
