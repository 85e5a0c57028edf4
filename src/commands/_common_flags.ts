/**
 * The flags most commands share: where the workspace is, which
 * config layers to add, and how much to print. Commands list them in their
 * own flag specs and turn them into {@linkcode loadConfig} options here, so
 * every command layers configuration the same way.
 *
 * @module
 */

import type { LoadConfigOptions } from "../config/load_config.ts";
import { DEFAULT_WORKSPACE } from "../runtime/create_runtime.ts";
import type { CommandIo } from "./command_io.ts";
import type { FlagSpec, ParsedFlags } from "./_flags.ts";

/** `--workspace`, `--config`, `--cfg`. */
export const CONFIG_FLAGS: readonly FlagSpec[] = [
  {
    name: "workspace",
    kind: "string",
    valueName: "DIR",
    help: `workspace directory; its config.toml is a config layer (default: ${DEFAULT_WORKSPACE})`,
  },
  {
    name: "config",
    kind: "string",
    repeatable: true,
    valueName: "FILE",
    help: "add a config file layer (repeatable; later files win)",
  },
  {
    name: "cfg",
    kind: "string",
    repeatable: true,
    valueName: "KEY=VALUE",
    help: "set one key, e.g. 'conversation.tools.*.run=ask' (repeatable; wins over files)",
  },
];

/** `--quiet`, `-v`. */
export const OUTPUT_FLAGS: readonly FlagSpec[] = [
  { name: "quiet", kind: "boolean", help: "print only problems and notices" },
  { name: "verbose", short: "v", kind: "count", help: "print more detail" },
];

/**
 * `--model PROVIDER/MODEL` of the commands that choose a model (`query`, and
 * `config check`, which checks the configuration that model would run with):
 * it sets `assistant.model.id` over every layer.
 */
export const MODEL_FLAG: FlagSpec = {
  name: "model",
  kind: "string",
  valueName: "PROVIDER/MODEL",
  help: "the model to ask, e.g. openai/gpt-4.1-mini (sets assistant.model.id)",
};

/**
 * The {@linkcode loadConfig} options that `--workspace`, `--config`, `--cfg`
 * and (for the commands that take it) `--model` ask for.
 */
export function configOptionsFromFlags(flags: ParsedFlags, io: CommandIo): LoadConfigOptions {
  const model = flags.string("model");
  return {
    workspace: flags.string("workspace") ?? DEFAULT_WORKSPACE,
    configFiles: flags.strings("config"),
    cfg: flags.strings("cfg"),
    env: io.env,
    cwd: io.cwd,
    ...(model === undefined ? {} : { model }),
  };
}
