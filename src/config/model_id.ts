/**
 * The model a `query` asks: `[assistant.model] id = "<provider>/<model>"`,
 * or `"script"` for the scripted provider (the default). The provider part
 * picks the API family (`openai` for every OpenAI-compatible server,
 * `anthropic` for the Messages API); the rest is the provider's own model
 * name and may itself hold `/` or `:` (`openai/meta-llama/Llama-3.3-70B`,
 * `openai/qwen2.5:7b`).
 *
 * @module
 */

/** An API family spillway speaks: `openai` (chat completions) or `anthropic` (Messages). */
export type LlmProviderName = "openai" | "anthropic";

/** The API families spillway speaks, in the order messages list them. */
export const LLM_PROVIDERS: readonly LlmProviderName[] = ["openai", "anthropic"];

/** The id of the scripted provider, and the default `assistant.model.id`. */
export const SCRIPT_MODEL_ID = "script";

/** An example id for messages. */
export const MODEL_ID_EXAMPLE = '"openai/gpt-4.1-mini"';

/** A parsed `assistant.model.id`. */
export type ModelId =
  /** The scripted provider (`"script"`). */
  | { readonly provider: "script" }
  /** A model behind one of the API families. */
  | { readonly provider: LlmProviderName; readonly model: string };

/** What {@linkcode parseModelId} returns: the id, or why it is not one. */
export type ParsedModelId =
  | { readonly ok: true; readonly id: ModelId }
  | { readonly ok: false; readonly reason: string };

/** Whitespace and control characters never belong in a model name. */
// deno-lint-ignore no-control-regex
const UNPRINTABLE = /[\s\u0000-\u001f\u007f]/;

/**
 * Reads `text` as a model id. The reason of a failure completes a sentence
 * that starts with the quoted setting (`assistant.model.id = "…" `).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseModelId } from "./model_id.ts";
 * assert.deepEqual(parseModelId("openai/qwen2.5:7b"), {
 *   ok: true,
 *   id: { provider: "openai", model: "qwen2.5:7b" },
 * });
 * assert.equal(parseModelId("script").ok, true);
 * assert.equal(parseModelId("gpt-4.1").ok, false);
 * ```
 */
export function parseModelId(text: string): ParsedModelId {
  if (text === SCRIPT_MODEL_ID) return { ok: true, id: { provider: "script" } };
  const expected = `"<provider>/<model>" with a provider among ${LLM_PROVIDERS.join(", ")}, ` +
    `e.g. ${MODEL_ID_EXAMPLE}, or "${SCRIPT_MODEL_ID}"`;
  const slash = text.indexOf("/");
  if (slash < 0) return { ok: false, reason: `is not valid (expected ${expected})` };
  const provider = text.slice(0, slash);
  const model = text.slice(slash + 1);
  if (!(LLM_PROVIDERS as readonly string[]).includes(provider)) {
    return {
      ok: false,
      reason: `names an unknown provider ${JSON.stringify(provider)} ` +
        `(expected one of: ${LLM_PROVIDERS.join(", ")}; any OpenAI-compatible server is "openai")`,
    };
  }
  if (model === "" || UNPRINTABLE.test(model)) {
    return { ok: false, reason: `is not valid (expected ${expected})` };
  }
  return { ok: true, id: { provider: provider as LlmProviderName, model } };
}
