/**
 * Validates one `[conversation.tools.<name>]` table (or `'*'`) of a layer:
 * every key known, every value of the right type and among the accepted
 * spellings. Problems are collected, not thrown, so one run reports them all.
 *
 * @module
 */

import { ByteSize } from "../size/byte_size.ts";
import { SizeThreshold } from "../size/size_threshold.ts";
import { parseTruncationSplit, TRUNCATION_STRATEGIES } from "../size/truncation.ts";
import type { ConfigValue } from "./config_value.ts";
import { DEFAULT_TOOL_TIMEOUT_SECONDS } from "./builtin_defaults.ts";
import type { MutableToolSettings } from "./_layer.ts";
import { assignment, isStringArray, isTable, type LayerContext, put } from "./_layer_context.ts";
import { formatKeyPath } from "./_key_path.ts";
import {
  type InlineResults,
  parseToolSourceRef,
  RESULT_MODES,
  RESULTS_FILE_LINKS,
  RUN_MODES,
} from "./tool_vocabulary.ts";
import { reasonText } from "../errors/reason_text.ts";

/** Keys of a tool table, in the order messages list them. */
export const TOOL_KEYS = [
  "source",
  "command",
  "timeout",
  "run",
  "result",
  "size_threshold",
  "truncation",
  "truncation_split",
  "spill",
  "cancellation_response",
  "style",
  "description",
] as const;

const STYLE_KEYS = ["inline_results", "results_file_link"] as const;

/** Keys that describe one particular tool and make no sense for all of them. */
const NAMED_TOOL_ONLY = new Set(["source", "command", "description"]);

const COMMAND_EXAMPLE = 'e.g. ["cargo", "test"]';
const SIZE_EXPECTED = 'a size such as "256KB" or "1MB", a byte count, or "unlimited"';
const INLINE_EXPECTED = '"off", "full", or a number of lines such as 10';
const SPLIT_EXPECTED = "the head's and the tail's percent of the kept bytes as \"HEAD/TAIL\", " +
  'adding up to 100, e.g. "50/50" or "20/80"';

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
    if (name === "*" && NAMED_TOOL_ONLY.has(key)) {
      ctx.fail(
        path,
        `${formatKeyPath(path)} cannot be set for all tools (set ${key} on a named tool)`,
      );
      continue;
    }
    switch (key) {
      case "source":
        put(settings, "source", source(ctx, path, value, name));
        break;
      case "command":
        put(settings, "command", command(ctx, path, value));
        break;
      case "timeout":
        put(settings, "timeout", ctx.seconds(path, value, DEFAULT_TOOL_TIMEOUT_SECONDS));
        break;
      case "run":
        put(settings, "run", ctx.oneOf(path, value, RUN_MODES));
        break;
      case "result":
        put(settings, "result", ctx.oneOf(path, value, RESULT_MODES));
        break;
      case "size_threshold":
        put(settings, "size_threshold", sizeThreshold(ctx, path, value));
        break;
      case "truncation":
        put(settings, "truncation", ctx.oneOf(path, value, TRUNCATION_STRATEGIES));
        break;
      case "truncation_split":
        put(settings, "truncation_split", truncationSplit(ctx, path, value));
        break;
      case "spill":
        put(settings, "spill", spill(ctx, path, value));
        break;
      case "cancellation_response":
        put(settings, "cancellation_response", ctx.string(path, value));
        break;
      case "description":
        put(settings, "description", ctx.string(path, value));
        break;
      case "style":
        style(ctx, path, value, settings);
        break;
      default:
        ctx.unknownKey(path, TOOL_KEYS);
    }
  }
}

function source(
  ctx: LayerContext,
  path: string[],
  value: unknown,
  name: string,
): ConfigValue<string> | undefined {
  const expected = "builtin, local, mcp.<server>, mcp.<server>.<tool>";
  if (typeof value !== "string") return ctx.wrongType(path, value, `a string, one of: ${expected}`);
  if (parseToolSourceRef(value, name) === undefined) {
    return ctx.notValid(path, value, `one of: ${expected}`);
  }
  return ctx.value(path, value);
}

function command(
  ctx: LayerContext,
  path: string[],
  value: unknown,
): ConfigValue<readonly string[]> | undefined {
  if (!isStringArray(value)) {
    return ctx.wrongType(path, value, `an array of strings, ${COMMAND_EXAMPLE}`);
  }
  if (value.length === 0 || value[0] === "") {
    return ctx.notValid(
      path,
      value,
      `a non-empty array of strings starting with the program, ${COMMAND_EXAMPLE}`,
    );
  }
  return ctx.value(path, Object.freeze([...value]));
}

function sizeThreshold(
  ctx: LayerContext,
  path: string[],
  value: unknown,
): ConfigValue<SizeThreshold> | undefined {
  if (typeof value !== "string" && !(typeof value === "number" && Number.isInteger(value))) {
    return ctx.wrongType(path, value, SIZE_EXPECTED);
  }
  try {
    return ctx.value(path, SizeThreshold.parse(value));
  } catch {
    // Tell a malformed size from a well-formed one below the minimum by
    // asking ByteSize alone: its error, if any, names what is malformed.
    try {
      ByteSize.parse(value);
    } catch (error) {
      const reason = reasonText(error);
      return ctx.fail(path, `${assignment(path, value)}: ${reason}`);
    }
    return ctx.fail(
      path,
      `${assignment(path, value)} is below the 1KB minimum: ` +
        'use "unlimited" for no limit, or result = "skip" for no result at all',
    );
  }
}

function spill(
  ctx: LayerContext,
  path: string[],
  value: unknown,
): ConfigValue<boolean> | undefined {
  if (typeof value !== "boolean") return ctx.wrongType(path, value, "true or false");
  return ctx.value(path, value);
}

function truncationSplit(
  ctx: LayerContext,
  path: string[],
  value: unknown,
): ConfigValue<number> | undefined {
  if (typeof value !== "string") return ctx.wrongType(path, value, `a string: ${SPLIT_EXPECTED}`);
  const head = parseTruncationSplit(value);
  if (head === undefined) return ctx.notValid(path, value, SPLIT_EXPECTED);
  return ctx.value(path, head);
}

function style(
  ctx: LayerContext,
  path: string[],
  value: unknown,
  settings: MutableToolSettings,
): void {
  if (!isTable(value)) {
    ctx.wrongType(path, value, "a table with inline_results and/or results_file_link");
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const itemPath = [...path, key];
    if (key === "inline_results") {
      put(settings, "style.inline_results", inlineResults(ctx, itemPath, item));
    } else if (key === "results_file_link") {
      put(settings, "style.results_file_link", ctx.oneOf(itemPath, item, RESULTS_FILE_LINKS));
    } else {
      ctx.unknownKey(itemPath, STYLE_KEYS);
    }
  }
}

function inlineResults(
  ctx: LayerContext,
  path: string[],
  value: unknown,
): ConfigValue<InlineResults> | undefined {
  if (value === "off" || value === "full") return ctx.value(path, value);
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) && value >= 0) return ctx.value(path, value);
    return ctx.notValid(path, value, INLINE_EXPECTED);
  }
  if (typeof value === "string") return ctx.notValid(path, value, INLINE_EXPECTED);
  return ctx.wrongType(path, value, INLINE_EXPECTED);
}
