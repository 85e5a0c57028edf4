/**
 * A configured value together with the layer it came from. Layering means a
 * value can come from the built-in defaults, the user file, the workspace
 * file, a `--config` file or a `--cfg` flag; `spillway config check` shows
 * which, and error messages cite the exact place.
 *
 * @module
 */

/**
 * One configured value and where it came from.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseConfig } from "./parse_config.ts";
 * const config = parseConfig('[conversation.tools.x]\nrun = "ask"\n', "my.toml");
 * assert.equal(config.tool("x").origin("run"), "my.toml");
 * ```
 */
export interface ConfigValue<T> {
  /** The validated value. */
  readonly value: T;
  /** The layer: `"default"`, the config file's path as given, or `"--cfg"`. */
  readonly origin: string;
  /**
   * The exact place to cite in messages: `"default"`, `"path:line"` (or the
   * path alone when the line is unknown), or the whole `--cfg key=value`.
   */
  readonly at: string;
}
