/**
 * Validates one `[conversation.tools.<name>]` table (or `'*'`) of a layer:
 * every key known, every value of the right type and among the accepted
 * spellings. Problems are collected, not thrown, so one run reports them all.
 * The keys and how each is read come from `TOOL_CONFIG_KEYS`.
 *
 * @module
 */

import type { MutableToolSettings } from "./_layer.ts";
import { isTable, type LayerContext, put } from "./_layer_context.ts";
import { formatKeyPath } from "./_key_path.ts";
import { TOOL_CONFIG_KEY_NAMES, TOOL_CONFIG_KEYS, type ToolConfigKey } from "./tool_settings.ts";

/** The keys a tool table accepts: its own, and each inner table's name (`style`), in list order. */
const TABLE_KEYS = [...new Set(TOOL_CONFIG_KEY_NAMES.map((key) => key.split(".")[0] ?? key))];

/** The keys of each inner table (`style` → `inline_results`, `results_file_link`). */
const INNER_KEYS = new Map<string, string[]>();
for (const key of TOOL_CONFIG_KEY_NAMES) {
  const [table, item] = key.split(".");
  if (table === undefined || item === undefined) continue;
  INNER_KEYS.set(table, [...(INNER_KEYS.get(table) ?? []), item]);
}

/** Validates `table` as the tool `name` and stores what is valid in `ctx.layer`. */
export function validateTool(ctx: LayerContext, name: string, table: unknown): void {
  const base = ["conversation", "tools", name];
  if (!isTable(table)) {
    ctx.wrongType(base, table, `a table of tool settings, e.g. [${formatKeyPath(base)}]`);
    return;
  }
  const settings: MutableToolSettings = ctx.layer.tools.get(name) ?? {};
  ctx.layer.tools.set(name, settings);
  for (const [key, value] of Object.entries(table)) {
    const path = [...base, key];
    const inner = INNER_KEYS.get(key);
    if (inner !== undefined) {
      innerTable(ctx, { path, value, name, settings }, inner);
    } else if (isToolKey(key)) {
      readKey(ctx, key, { path, value, name, settings });
    } else {
      ctx.unknownKey(path, TABLE_KEYS);
    }
  }
}

/** One value of a tool table, where it is written, and the settings it goes into. */
interface Entry {
  readonly path: string[];
  readonly value: unknown;
  readonly name: string;
  readonly settings: MutableToolSettings;
}

function isToolKey(key: string): key is ToolConfigKey {
  return !key.includes(".") && Object.hasOwn(TOOL_CONFIG_KEYS, key);
}

function readKey<K extends ToolConfigKey>(ctx: LayerContext, key: K, entry: Entry): void {
  const spec = TOOL_CONFIG_KEYS[key];
  if (entry.name === "*" && spec.only === "named tool") {
    ctx.fail(
      entry.path,
      `${formatKeyPath(entry.path)} cannot be set for all tools (set ${key} on a named tool)`,
    );
    return;
  }
  const value = spec.read(ctx, entry.path, entry.value, entry.name);
  // TOOL_CONFIG_KEYS pairs each key with a reader of its own type; TypeScript
  // cannot follow that pairing through a generic index, hence the cast.
  put(entry.settings, key, value as MutableToolSettings[K]);
}

function innerTable(ctx: LayerContext, entry: Entry, items: readonly string[]): void {
  const { path, value } = entry;
  if (!isTable(value)) {
    ctx.wrongType(path, value, `a table with ${items.join(" and/or ")}`);
    return;
  }
  const table = path.at(-1);
  for (const [item, itemValue] of Object.entries(value)) {
    const key = `${table}.${item}`;
    const itemPath = [...path, item];
    if (Object.hasOwn(TOOL_CONFIG_KEYS, key)) {
      readKey(ctx, key as ToolConfigKey, { ...entry, path: itemPath, value: itemValue });
    } else {
      ctx.unknownKey(itemPath, items);
    }
  }
}
