/**
 * How the value of each `[conversation.tools.<name>]` key is read: its type,
 * its accepted spellings, and the message when it is neither. The list of
 * keys (`TOOL_CONFIG_KEYS` in tool_settings.ts) names one reader per key.
 *
 * @module
 */

import { ByteSize } from "../size/byte_size.ts";
import { SizeThreshold } from "../size/size_threshold.ts";
import { parseTruncationSplit } from "../size/truncation.ts";
import { reasonText } from "../errors/reason_text.ts";
import type { ConfigValue } from "./config_value.ts";
import { DEFAULT_TOOL_TIMEOUT_SECONDS } from "./builtin_defaults.ts";
import { assignment, isStringArray, type LayerContext } from "./_layer_context.ts";
import { type InlineResults, parseToolSourceRef } from "./tool_vocabulary.ts";

/**
 * Reads one value of a tool table: returns it with its origin, or records
 * the problem in `ctx` and returns `undefined`.
 *
 * @param tool the table's tool name (`"*"` for the defaults), for `source`
 */
export type ToolValueReader<T> = (
  ctx: LayerContext,
  path: readonly string[],
  value: unknown,
  tool: string,
) => ConfigValue<T> | undefined;

const COMMAND_EXAMPLE = 'e.g. ["cargo", "test"]';
const SIZE_EXPECTED = 'a size such as "256KB" or "1MB", a byte count, or "unlimited"';
const INLINE_EXPECTED = '"off", "full", or a number of lines such as 10';
const SPLIT_EXPECTED = "the head's and the tail's percent of the kept bytes as \"HEAD/TAIL\", " +
  'adding up to 100, e.g. "50/50" or "20/80"';
const SOURCE_EXPECTED = "builtin, local, mcp.<server>, mcp.<server>.<tool>";

/** A string among `accepted` (listed in that order when it is not). */
export function oneOf<T extends string>(accepted: readonly T[]): ToolValueReader<T> {
  return (ctx, path, value) => ctx.oneOf(path, value, accepted);
}

/** Any string. */
export const anyString: ToolValueReader<string> = (ctx, path, value) => ctx.string(path, value);

/** `true` or `false`. */
export const trueOrFalse: ToolValueReader<boolean> = (ctx, path, value) => {
  if (typeof value !== "boolean") return ctx.wrongType(path, value, "true or false");
  return ctx.value(path, value);
};

/** A positive number of seconds (`timeout`). */
export const seconds: ToolValueReader<number> = (ctx, path, value) =>
  ctx.seconds(path, value, DEFAULT_TOOL_TIMEOUT_SECONDS);

/** `source`: `builtin`, `local`, `mcp.<server>` or `mcp.<server>.<tool>`. */
export const toolSource: ToolValueReader<string> = (ctx, path, value, tool) => {
  if (typeof value !== "string") {
    return ctx.wrongType(path, value, `a string, one of: ${SOURCE_EXPECTED}`);
  }
  if (parseToolSourceRef(value, tool) === undefined) {
    return ctx.notValid(path, value, `one of: ${SOURCE_EXPECTED}`);
  }
  return ctx.value(path, value);
};

/** `command`: a non-empty argv, the program first. */
export const argv: ToolValueReader<readonly string[]> = (ctx, path, value) => {
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
};

/** `size_threshold`: `"unlimited"` or a size of at least 1KB. */
export const sizeThreshold: ToolValueReader<SizeThreshold> = (ctx, path, value) => {
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
};

/** `truncation_split`: `"HEAD/TAIL"` percentages adding up to 100; the value is the head's. */
export const truncationSplit: ToolValueReader<number> = (ctx, path, value) => {
  if (typeof value !== "string") return ctx.wrongType(path, value, `a string: ${SPLIT_EXPECTED}`);
  const head = parseTruncationSplit(value);
  if (head === undefined) return ctx.notValid(path, value, SPLIT_EXPECTED);
  return ctx.value(path, head);
};

/** `style.inline_results`: `"off"`, `"full"`, or a number of lines. */
export const inlineResults: ToolValueReader<InlineResults> = (ctx, path, value) => {
  if (value === "off" || value === "full") return ctx.value(path, value);
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) && value >= 0) return ctx.value(path, value);
    return ctx.notValid(path, value, INLINE_EXPECTED);
  }
  if (typeof value === "string") return ctx.notValid(path, value, INLINE_EXPECTED);
  return ctx.wrongType(path, value, INLINE_EXPECTED);
};
