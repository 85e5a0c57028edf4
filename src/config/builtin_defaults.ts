/**
 * The built-in defaults: the bottom layer under every config file. They are
 * what a tool gets when neither its own table nor `'*'` sets a key, and
 * `spillway config check` reports them with origin `"default"`.
 *
 * @module
 */

import type { ToolConfigKey } from "./tool_settings.ts";

/**
 * Seconds a tool call may run, whatever its source (builtin, local, an
 * upstream MCP server), before it is stopped and answered with a timeout
 * error, unless `timeout` says otherwise.
 */
export const DEFAULT_TOOL_TIMEOUT_SECONDS = 120;

/**
 * Seconds an upstream MCP server gets to answer the `initialize` handshake
 * (and the `tools/list` after it) when spillway starts it, unless
 * `providers.mcp.<name>.startup_timeout` says otherwise. A server that does
 * not answer in time is killed and reported.
 */
export const DEFAULT_STARTUP_TIMEOUT_SECONDS = 30;

/** What is recorded when the user cancels a call without saying why. */
export const DEFAULT_CANCELLATION_RESPONSE = "The user cancelled this tool call.";

/**
 * The built-in tool defaults, keyed as in TOML. `run` and `result` are
 * `"unattended"`: a tool exists only because the user configured it, and
 * gateway clients ask their own users.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BUILTIN_TOOL_DEFAULTS } from "./builtin_defaults.ts";
 * assert.equal(BUILTIN_TOOL_DEFAULTS.size_threshold, "256KB");
 * ```
 */
export const BUILTIN_TOOL_DEFAULTS = {
  run: "unattended",
  result: "unattended",
  size_threshold: "256KB",
  truncation: "head",
  truncation_split: "50/50",
  spill: false,
  cancellation_response: DEFAULT_CANCELLATION_RESPONSE,
  timeout: DEFAULT_TOOL_TIMEOUT_SECONDS,
  "style.inline_results": 10,
  "style.results_file_link": "osc8",
} as const satisfies { readonly [K in ToolConfigKey]?: unknown };
