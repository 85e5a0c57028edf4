/**
 * Loads the layered configuration from disk and flags: built-in defaults,
 * the user file, the workspace file, each `--config` file, then each
 * `--cfg key=value`, later layers winning key by key.
 *
 * @module
 */

import { isAbsolute, join, resolve } from "node:path";
import { buildConfig, type LayerInput } from "./_build_config.ts";
import { cfgSite, flagSite, parseCfgAssignment } from "./_cfg_assignment.ts";
import type { ConfigSource } from "./config_source.ts";
import type { SpillwayConfig } from "./spillway_config.ts";
import { reasonText } from "../errors/reason_text.ts";
import * as files from "../platform/files.ts";
import { isNotFound } from "../platform/file_errors.ts";
import { currentDirectory, environment } from "../platform/processes.ts";

/** The name of the config file in the user config directory and in a workspace. */
export const CONFIG_FILE_NAME = "config.toml";

/** Options of {@linkcode loadConfig}. */
export interface LoadConfigOptions {
  /**
   * The workspace directory; its `config.toml` is read when present.
   * Defaults to none (no workspace layer); the CLI passes `.spillway`.
   */
  readonly workspace?: string;
  /** `--config` files, in order. Each must exist. Defaults to `[]`. */
  readonly configFiles?: readonly string[];
  /** `--cfg key=value` assignments, in order. Defaults to `[]`. */
  readonly cfg?: readonly string[];
  /**
   * `--model PROVIDER/MODEL`: sets `assistant.model.id` over every other
   * layer, with origin `"--model"`. Default: not set.
   */
  readonly model?: string;
  /**
   * Environment for finding the user file (`XDG_CONFIG_HOME`, else
   * `HOME/.config`) and for checking that the model's API key is set (only
   * whether it is: the key is read when a provider is created). Defaults to
   * the process environment. Pass `{}` to skip the user file.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Directory relative paths are resolved against. Defaults to `Deno.cwd()`. */
  readonly cwd?: string;
}

/**
 * The user config file: `$XDG_CONFIG_HOME/spillway/config.toml`, else
 * `~/.config/spillway/config.toml`; `undefined` when neither is known.
 * A relative `XDG_CONFIG_HOME` is ignored, as the XDG spec asks.
 */
export function userConfigPath(
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const xdg = env["XDG_CONFIG_HOME"];
  if (xdg !== undefined && xdg !== "" && isAbsolute(xdg)) {
    return join(xdg, "spillway", CONFIG_FILE_NAME);
  }
  const home = env["HOME"] || env["USERPROFILE"];
  return home ? join(home, ".config", "spillway", CONFIG_FILE_NAME) : undefined;
}

/**
 * Loads, merges and validates the layered configuration. Missing user and
 * workspace files are fine; a missing `--config` file is an error.
 *
 * @returns the validated config; `sources` lists every layer looked at
 * @throws {SpillwayError} `config_invalid` listing every problem of every layer, one per line
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadConfig } from "./load_config.ts";
 * const config = await loadConfig({ env: {}, cfg: ["conversation.tools.'*'.size_threshold=1MB"] });
 * assert.equal(config.tool("any").sizeThreshold().toString(), "1MB");
 * assert.equal(config.tool("any").origin("size_threshold"), "--cfg");
 * ```
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<SpillwayConfig> {
  const env = options.env ?? environment();
  const cwd = options.cwd ?? currentDirectory();
  const sources: ConfigSource[] = [{ kind: "default", label: "default", present: true }];
  const inputs: LayerInput[] = [];

  const readLayer = async (kind: ConfigSource["kind"], path: string, required: boolean) => {
    const read = await readFile(resolve(cwd, path), path, required);
    sources.push({ kind, label: path, present: read !== undefined && "text" in read });
    if (read !== undefined) inputs.push(read);
  };

  const user = userConfigPath(env);
  if (user !== undefined) await readLayer("user", user, false);
  if (options.workspace !== undefined) {
    await readLayer("workspace", join(options.workspace, CONFIG_FILE_NAME), false);
  }
  for (const file of options.configFiles ?? []) await readLayer("file", file, true);
  for (const assignment of options.cfg ?? []) {
    sources.push({ kind: "cfg", label: "--cfg", present: true, assignment });
    const parsed = parseCfgAssignment(assignment);
    if (parsed.ok) {
      inputs.push({ document: parsed.document, origin: "--cfg", site: cfgSite(assignment) });
    } else {
      inputs.push({ problem: parsed.error });
    }
  }
  if (options.model !== undefined) {
    sources.push({ kind: "model", label: "--model", present: true, assignment: options.model });
    inputs.push({
      document: { assistant: { model: { id: options.model } } },
      origin: "--model",
      site: flagSite("--model", options.model),
    });
  }
  return buildConfig(inputs, sources, { env });
}

/** Reads one layer file: its text, a problem, or `undefined` when absent and optional. */
async function readFile(
  path: string,
  label: string,
  required: boolean,
): Promise<LayerInput | undefined> {
  try {
    return { text: await files.readTextFile(path), origin: label, site: label };
  } catch (error) {
    if (isNotFound(error)) {
      return required ? { problem: `${label}: config file not found` } : undefined;
    }
    const reason = reasonText(error);
    return { problem: `${label}: cannot read config file: ${reason}` };
  }
}
