/**
 * Validates a `pass_env` list (of a local tool, or of a stdio MCP server):
 * the variables of spillway's own environment that the process also gets,
 * beyond the few every process gets. Each item is a variable's name
 * (`"GITHUB_TOKEN"`), a prefix ending in `*` (`"AWS_*"`), or `"*"` alone
 * (everything but spillway's own secrets).
 *
 * @module
 */

import type { ConfigValue } from "./config_value.ts";
import { assignment, isStringArray, type LayerContext } from "./_layer_context.ts";

/** A variable name, or a prefix of one followed by `*` (the prefix may be empty). */
const PASS_ENV_ITEM = /^(?:[A-Za-z_][A-Za-z0-9_]*\*?|\*)$/;

const EXPECTED = 'names of environment variables, or prefixes ending in "*", ' +
  'e.g. ["GITHUB_TOKEN", "AWS_*"]';

/** Checks `value` is a `pass_env` list; returns it frozen, or records the problem. */
export function validatePassEnv(
  ctx: LayerContext,
  path: readonly string[],
  value: unknown,
): ConfigValue<readonly string[]> | undefined {
  if (!isStringArray(value)) return ctx.wrongType(path, value, `a list of ${EXPECTED}`);
  const bad = value.find((item) => !PASS_ENV_ITEM.test(item));
  if (bad !== undefined) {
    return ctx.fail(
      path,
      `${assignment(path, value)}: \`${bad}\` is not a variable name (expected ${EXPECTED})`,
    );
  }
  return ctx.value(path, Object.freeze([...value]));
}
