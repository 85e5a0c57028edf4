/**
 * Private helper of `query`: which model the turn asks. `--script FILE`
 * replays a script; otherwise `assistant.model.id` (or `--model`) names a
 * model API. Neither is a usage error that names both ways, rather than a
 * turn recorded against no model.
 *
 * @module
 */

import { resolve } from "node:path";
import type { SpillwayConfig } from "../config/spillway_config.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import type { Provider } from "../provider/provider.ts";
import { providerFromConfig } from "../provider/provider_from_config.ts";
import { loadScript, ScriptedProvider } from "../provider/scripted_provider.ts";

/** What the choice depends on besides the config. */
export interface QueryProviderChoice {
  /** `--script FILE`, if given. */
  readonly scriptPath: string | undefined;
  /** `--model`, if given. */
  readonly model: string | undefined;
  /** The directory a relative script path is resolved against. */
  readonly cwd: string;
  /** Where the API key is read from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Told when an image is sent as its placeholder. */
  readonly notice: (text: string) => void;
}

/**
 * The provider for this `query`.
 *
 * @throws {SpillwayError} `usage` when both or neither of `--script` and a model are given
 */
export async function queryProvider(
  config: SpillwayConfig,
  choice: QueryProviderChoice,
): Promise<Provider> {
  if (choice.scriptPath !== undefined) {
    if (choice.model !== undefined) {
      throw new SpillwayError(
        "usage",
        "--script and --model both choose the model: pass one of them",
      );
    }
    return new ScriptedProvider(await loadScript(resolve(choice.cwd, choice.scriptPath)));
  }
  const provider = await providerFromConfig(config, { env: choice.env, notice: choice.notice });
  if (provider === undefined) {
    throw new SpillwayError(
      "usage",
      "no model to ask: pass --model PROVIDER/MODEL (e.g. --model openai/gpt-4.1-mini, or " +
        'set [assistant.model] id = "…" in config.toml), or --script FILE to replay a ' +
        "scripted model (see examples/demo/script.toml)",
    );
  }
  return provider;
}
