/**
 * The keys of a `[conversation.tools.<name>]` table (or the `'*'` table):
 * what each holds once validated, how it is read, where it may be set, and
 * when `config check` shows it. This is the one list: the validator, the
 * "unknown key" message, the unknown-tool warnings and `config check` all
 * derive from {@linkcode TOOL_CONFIG_KEYS}. Layers merge key by key, so a
 * `--cfg` flag can change one key of a tool the workspace file defines.
 *
 * Adding a key is one line in `TOOL_CONFIG_KEYS` (with a reader from
 * `_tool_values.ts`, or a new one there) and its field in `ToolSettings`,
 * whose type the line must match: the compiler refuses either without the
 * other. (`ToolSettings` is spelled out because it is public API, and a
 * public type cannot be derived from a private table.) Code that uses the
 * key reads it through `ToolConfigWithDefaults`; tests/tool_config_keys_test.ts
 * asks for a sample value of the new key and checks every consumer knows it.
 * A new value of a key (a `truncation` strategy) goes in the list its reader
 * takes (`TRUNCATION_STRATEGIES`), not here.
 *
 * @module
 */

import type { SizeThreshold } from "../size/size_threshold.ts";
import { TRUNCATION_STRATEGIES, type TruncationStrategy } from "../size/truncation.ts";
import type { ConfigValue } from "./config_value.ts";
import {
  anyString,
  argv,
  inlineResults,
  oneOf,
  seconds,
  sizeThreshold,
  toolSource,
  type ToolValueReader,
  trueOrFalse,
  truncationSplit,
} from "./_tool_values.ts";
import { validatePassEnv } from "./_validate_pass_env.ts";
import {
  type InlineResults,
  RESULT_MODES,
  type ResultMode,
  RESULTS_FILE_LINKS,
  type ResultsFileLink,
  RUN_MODES,
  type RunMode,
} from "./tool_vocabulary.ts";

/** The validated keys one tool table sets; absent keys fall through to `'*'`. */
export interface ToolSettings {
  /** `source` as written (`"builtin"`, `"local"`, `"mcp.<server>[.<tool>]"`). */
  readonly source?: ConfigValue<string>;
  /** `command`: the argv of a local tool. */
  readonly command?: ConfigValue<readonly string[]>;
  /** `pass_env`: the variables of spillway's environment a local tool also gets. */
  readonly pass_env?: ConfigValue<readonly string[]>;
  /** `timeout` in seconds. */
  readonly timeout?: ConfigValue<number>;
  /** `run`. */
  readonly run?: ConfigValue<RunMode>;
  /** `result`. */
  readonly result?: ConfigValue<ResultMode>;
  /** `size_threshold`. */
  readonly size_threshold?: ConfigValue<SizeThreshold>;
  /** `truncation`: which end(s) a cut keeps. */
  readonly truncation?: ConfigValue<TruncationStrategy>;
  /** `truncation_split`: the head's percent of the kept bytes under `head_tail`. */
  readonly truncation_split?: ConfigValue<number>;
  /** `spill`: whether the whole output is kept in the blob store for `read_tool_output`. */
  readonly spill?: ConfigValue<boolean>;
  /** `cancellation_response`. */
  readonly cancellation_response?: ConfigValue<string>;
  /** `style.inline_results`. */
  readonly "style.inline_results"?: ConfigValue<InlineResults>;
  /** `style.results_file_link`. */
  readonly "style.results_file_link"?: ConfigValue<ResultsFileLink>;
  /** `description`, advertised to the model. */
  readonly description?: ConfigValue<string>;
}

/**
 * A tool key as `origin()` and messages spell it: the TOML key, a key of an
 * inner table written `table.key` (`"style.inline_results"`).
 */
export type ToolConfigKey = keyof ToolSettings;

/** What one tool key accepts, where it may be set, and when `config check` lists it. */
export interface ToolKeySpec<T> {
  /** Reads and checks the value as written. */
  readonly read: ToolValueReader<T>;
  /** `"named tool"`: it describes one tool, so `'*'` may not set it. Default: any table. */
  readonly only?: "named tool";
  /**
   * When `config check` lists it for a tool: `"always"`, `"when set or local"`
   * (also for every local tool), or (the default) when the tool's own table
   * sets it (for `'*'`: when a layer does), and under `-v` whenever it has a value.
   */
  readonly shown?: "always" | "when set or local";
}

type ValueOf<K extends ToolConfigKey> = NonNullable<ToolSettings[K]> extends ConfigValue<infer T>
  ? T
  : never;

/**
 * Every tool key, in the order messages and `config check` list them. A key
 * of an inner table (`style.inline_results`) makes that table (`style`) a
 * key of the tool table.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseConfig } from "./parse_config.ts";
 * import { TOOL_CONFIG_KEYS } from "./tool_settings.ts";
 * assert.equal(TOOL_CONFIG_KEYS.description.only, "named tool");
 * assert.throws(() => parseConfig("[conversation.tools.'*']\ndescription = \"x\"\n", "c.toml"), {
 *   message: "c.toml:2: conversation.tools.'*'.description cannot be set for all tools " +
 *     "(set description on a named tool)",
 * });
 * ```
 */
export const TOOL_CONFIG_KEYS: { readonly [K in ToolConfigKey]-?: ToolKeySpec<ValueOf<K>> } = {
  source: { read: toolSource, only: "named tool" },
  command: { read: argv, only: "named tool" },
  pass_env: { read: validatePassEnv },
  timeout: { read: seconds, shown: "when set or local" },
  run: { read: oneOf(RUN_MODES), shown: "always" },
  result: { read: oneOf(RESULT_MODES), shown: "always" },
  size_threshold: { read: sizeThreshold, shown: "always" },
  truncation: { read: oneOf(TRUNCATION_STRATEGIES) },
  truncation_split: { read: truncationSplit },
  spill: { read: trueOrFalse },
  cancellation_response: { read: anyString },
  "style.inline_results": { read: inlineResults },
  "style.results_file_link": { read: oneOf(RESULTS_FILE_LINKS) },
  description: { read: anyString, only: "named tool" },
};

/** The keys of {@linkcode TOOL_CONFIG_KEYS}, in its order. */
export const TOOL_CONFIG_KEY_NAMES: readonly ToolConfigKey[] = Object.freeze(
  Object.keys(TOOL_CONFIG_KEYS) as ToolConfigKey[],
);
