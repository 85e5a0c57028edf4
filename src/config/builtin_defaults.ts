/**
 * The built-in defaults: the bottom layer under every config file. They are
 * what a tool gets when neither its own table nor `'*'` sets a key, and
 * `spillway config check` reports them with origin `"default"`.
 *
 * @module
 */

/** Seconds a local tool may run before it is cancelled, unless `timeout` says otherwise. */
export const DEFAULT_LOCAL_TOOL_TIMEOUT_SECONDS = 120;

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
  cancellation_response: DEFAULT_CANCELLATION_RESPONSE,
  timeout: DEFAULT_LOCAL_TOOL_TIMEOUT_SECONDS,
  "style.inline_results": 10,
  "style.results_file_link": "osc8",
} as const;
