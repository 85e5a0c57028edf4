/**
 * Validates the `[assistant]` table of a layer: `[assistant.model] id`, the
 * model `query` asks. Whether its provider has a key is checked once all
 * layers are merged (a file may name the model and a flag the key variable).
 *
 * @module
 */

import { assignment, isTable, type LayerContext } from "./_layer_context.ts";
import { MODEL_ID_EXAMPLE, parseModelId } from "./model_id.ts";

/** Keys of `[assistant]`. */
export const ASSISTANT_KEYS = ["model"] as const;

/** Keys of `[assistant.model]`. */
export const MODEL_KEYS = ["id"] as const;

/** Validates `value` as the `[assistant]` table and stores what is valid in `ctx.layer`. */
export function validateAssistant(ctx: LayerContext, value: unknown): void {
  if (!isTable(value)) {
    ctx.wrongType(["assistant"], value, "a table, e.g. [assistant.model]");
    return;
  }
  for (const [key, model] of Object.entries(value)) {
    if (key !== "model") {
      ctx.unknownKey(["assistant", key], ASSISTANT_KEYS);
      continue;
    }
    if (!isTable(model)) {
      ctx.wrongType(["assistant", "model"], model, `a table, e.g. { id = ${MODEL_ID_EXAMPLE} }`);
      continue;
    }
    for (const [name, id] of Object.entries(model)) {
      const path = ["assistant", "model", name];
      if (name !== "id") {
        ctx.unknownKey(path, MODEL_KEYS);
        continue;
      }
      modelId(ctx, path, id);
    }
  }
}

function modelId(ctx: LayerContext, path: string[], value: unknown): void {
  if (typeof value !== "string") {
    ctx.wrongType(path, value, `a string "<provider>/<model>", e.g. ${MODEL_ID_EXAMPLE}`);
    return;
  }
  const parsed = parseModelId(value);
  if (!parsed.ok) {
    ctx.fail(path, `${assignment(path, value)} ${parsed.reason}`);
    return;
  }
  ctx.layer.model = ctx.value(path, value);
}
