/**
 * Parses one TOML text as a config layer over the built-in defaults: the
 * entry point for embedders that hold their config in memory, and for tests.
 *
 * @module
 */

import { buildConfig } from "./_build_config.ts";
import type { SpillwayConfig } from "./spillway_config.ts";

/**
 * Parses and validates `tomlText` as one layer over the built-in defaults.
 *
 * @param tomlText the TOML document
 * @param source the name messages and origins use for it; defaults to `"<inline>"`
 * @returns the validated config
 * @throws {SpillwayError} `config_invalid` listing every problem, one per line
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseConfig } from "./parse_config.ts";
 * assert.throws(
 *   () => parseConfig("[conversation.tools.'*']\nrun = \"sometimes\"\n", "my.toml"),
 *   { message: `my.toml:2: conversation.tools.'*'.run = "sometimes" is not valid (expected one of: ask, unattended, edit, skip)` },
 * );
 * ```
 */
export function parseConfig(tomlText: string, source = "<inline>"): SpillwayConfig {
  return buildConfig(
    [{ text: tomlText, origin: source, site: source }],
    [
      { kind: "default", label: "default", present: true },
      { kind: "inline", label: source, present: true },
    ],
  );
}
