/**
 * One tool's effective configuration: its own table, then the `'*'`
 * defaults, then the built-in defaults. Every consumer (the phase-end cap,
 * the result prompt, the local tool runner, `config check`) reads tool
 * settings through this one resolution order.
 *
 * @module
 */

import { SizeThreshold } from "../size/size_threshold.ts";
import { DEFAULT_HEAD_PERCENT, parseTruncationSplit, type Truncation } from "../size/truncation.ts";
import { formatValue } from "./_format_value.ts";
import { formatKeyPath } from "./_key_path.ts";
import { BUILTIN_TOOL_DEFAULTS } from "./builtin_defaults.ts";
import type { ConfigValue } from "./config_value.ts";
import type { ToolConfigKey, ToolSettings } from "./tool_settings.ts";
import {
  type InlineResults,
  parseToolSourceRef,
  type ResultMode,
  type ResultsFileLink,
  type RunMode,
  type ToolSourceRef,
} from "./tool_vocabulary.ts";

/**
 * A tool's settings with the `'*'` and built-in defaults applied.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseConfig } from "./parse_config.ts";
 * const config = parseConfig(`
 * [conversation.tools.'*']
 * run = "ask"
 * [conversation.tools.cargo_test]
 * size_threshold = "1MB"
 * `);
 * const tool = config.tool("cargo_test");
 * assert.equal(tool.sizeThreshold().toString(), "1MB");
 * assert.equal(tool.run(), "ask");              // from '*'
 * assert.equal(tool.result(), "unattended");    // built-in default
 * ```
 */
export class ToolConfigWithDefaults {
  /** The tool's name (`"*"` for the defaults table itself). */
  readonly name: string;
  readonly #own: ToolSettings;
  readonly #star: ToolSettings;

  /**
   * Combines a tool's own table with the `'*'` table. Usually obtained from
   * {@linkcode SpillwayConfig.tool} rather than built directly.
   *
   * @param name the tool's name (`"*"` for the defaults themselves)
   * @param own the tool's own merged table; `undefined` when it has none
   * @param star the merged `'*'` table (built-in defaults already applied,
   *   though missing keys still fall back to {@linkcode BUILTIN_TOOL_DEFAULTS})
   * @internal built by `SpillwayConfig.tool()`; not part of the embedding API
   */
  constructor(name: string, own: ToolSettings | undefined, star: ToolSettings) {
    this.name = name;
    this.#own = own ?? {};
    this.#star = star;
  }

  /** The largest response recorded and delivered for this tool. */
  sizeThreshold(): SizeThreshold {
    return this.#pick("size_threshold")?.value ??
      SizeThreshold.parse(BUILTIN_TOOL_DEFAULTS.size_threshold);
  }

  /**
   * Which end(s) of a response a cut keeps (`truncation`), with the head's
   * share of the kept bytes under `head_tail` (`truncation_split`).
   */
  truncation(): Truncation {
    return {
      strategy: this.#pick("truncation")?.value ?? BUILTIN_TOOL_DEFAULTS.truncation,
      headPercent: this.#pick("truncation_split")?.value ??
        parseTruncationSplit(BUILTIN_TOOL_DEFAULTS.truncation_split) ?? DEFAULT_HEAD_PERCENT,
    };
  }

  /**
   * Whether the tool's whole output is stored in the workspace's blob store,
   * so that a cut can refer the assistant to it (`read_tool_output`).
   */
  spill(): boolean {
    return this.#pick("spill")?.value ?? BUILTIN_TOOL_DEFAULTS.spill;
  }

  /** Whether calls run unattended, after asking, after editing, or are skipped. */
  run(): RunMode {
    return this.#pick("run")?.value ?? BUILTIN_TOOL_DEFAULTS.run;
  }

  /** Whether results are delivered as is, after asking, after editing, or dropped. */
  result(): ResultMode {
    return this.#pick("result")?.value ?? BUILTIN_TOOL_DEFAULTS.result;
  }

  /** What is recorded when the user cancels the call without saying why. */
  cancellationResponse(): string {
    return this.#pick("cancellation_response")?.value ??
      BUILTIN_TOOL_DEFAULTS.cancellation_response;
  }

  /** How many result lines the terminal shows. */
  inlineResults(): InlineResults {
    return this.#pick("style.inline_results")?.value ??
      BUILTIN_TOOL_DEFAULTS["style.inline_results"];
  }

  /** How the terminal links to the full-result file. */
  resultsFileLink(): ResultsFileLink {
    return this.#pick("style.results_file_link")?.value ??
      BUILTIN_TOOL_DEFAULTS["style.results_file_link"];
  }

  /**
   * Where the tool comes from; `undefined` when no entry says, in which case
   * the runtime looks the name up among builtin tools and upstream servers.
   */
  source(): ToolSourceRef | undefined {
    const text = this.#own.source?.value;
    return text === undefined ? undefined : parseToolSourceRef(text, this.name);
  }

  /** The argv of a local tool; `undefined` for other sources. */
  command(): readonly string[] | undefined {
    return this.#own.command?.value;
  }

  /**
   * The variables of spillway's environment a local tool gets besides the
   * default ones (`pass_env`): names, prefixes ending in `*`, or `"*"`.
   * Default: none.
   */
  passEnv(): readonly string[] {
    return this.#pick("pass_env")?.value ?? [];
  }

  /** How long a local tool may run, in milliseconds (default 120 s). */
  timeoutMs(): number {
    return Math.round((this.#pick("timeout")?.value ?? BUILTIN_TOOL_DEFAULTS.timeout) * 1000);
  }

  /** The description advertised to the model, when the config gives one. */
  description(): string | undefined {
    return this.#own.description?.value;
  }

  /**
   * Which layer the resolved value of `key` came from: `"default"`, a config
   * file path, or `"--cfg"`; `undefined` for an optional key nobody set
   * (`source`, `command`, `description`).
   *
   * @internal for `config check` and config warnings; not part of the embedding API
   */
  origin(key: ToolConfigKey): string | undefined {
    return this.resolved(key)?.origin;
  }

  /**
   * Whether the tool's own table sets `key` (rather than inheriting it from `'*'` or the defaults).
   *
   * @internal for `config check` and config warnings; not part of the embedding API
   */
  hasOwn(key: ToolConfigKey): boolean {
    return this.#own[key] !== undefined;
  }

  /**
   * The resolved value of `key` with its origin and place, if any layer set it.
   *
   * @internal for `config check` and config warnings; not part of the embedding API
   */
  resolved(key: ToolConfigKey): ConfigValue<unknown> | undefined {
    const found = this.#pick(key);
    if (found !== undefined) return found;
    if (key in BUILTIN_TOOL_DEFAULTS) {
      const value = BUILTIN_TOOL_DEFAULTS[key as keyof typeof BUILTIN_TOOL_DEFAULTS];
      return { value, origin: "default", at: "default" };
    }
    return undefined;
  }

  /**
   * The setting of `key` as a config problem cites it: where it is set, the
   * key path of the table that sets it, and the value as written.
   *
   * @returns e.g. `config.toml:7: conversation.tools.say.source = "mcp.demo.ech"`;
   *   `undefined` when no layer sets `key` (it has its built-in default, or none)
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { parseConfig } from "./parse_config.ts";
   * const config = parseConfig(
   *   "[conversation.tools.'*']\nrun = \"ask\"\n[conversation.tools.lint]\ntimeout = 30\n",
   *   "c.toml",
   * );
   * assert.equal(config.tool("lint").describe("timeout"), "c.toml:4: conversation.tools.lint.timeout = 30");
   * assert.equal(config.tool("lint").describe("run"), "c.toml:2: conversation.tools.'*'.run = \"ask\"");
   * assert.equal(config.tool("lint").describe("source"), undefined);
   * ```
   *
   * @internal for config problems and warnings; not part of the embedding API
   */
  describe(key: ToolConfigKey): string | undefined {
    const found = this.#pick(key);
    if (found === undefined || found.origin === "default") return undefined;
    const table = this.hasOwn(key) ? this.name : "*";
    const path = formatKeyPath(["conversation", "tools", table, ...key.split(".")]);
    return `${found.at}: ${path} = ${formatValue(found.value)}`;
  }

  #pick<K extends ToolConfigKey>(key: K): ToolSettings[K] {
    // source, command and description belong to one tool; '*' never sets them.
    return this.#own[key] ?? this.#star[key];
  }
}
