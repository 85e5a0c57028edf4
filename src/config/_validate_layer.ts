/**
 * Validates one parsed layer (a TOML document or a `--cfg` assignment) into
 * a {@linkcode ConfigLayer}: walks the known tables, rejects unknown keys and
 * wrong types, and keeps every valid value with its origin.
 *
 * @module
 */

import { emptyLayer } from "./_layer.ts";
import type { ConfigLayer } from "./_layer.ts";
import { isTable, LayerContext } from "./_layer_context.ts";
import { validateAssistant } from "./_validate_assistant.ts";
import { validateLlmProvider } from "./_validate_llm_provider.ts";
import { validateProvider } from "./_validate_provider.ts";
import { validateServe } from "./_validate_serve.ts";
import { validateStore } from "./_validate_store.ts";
import { validateTool } from "./_validate_tool.ts";

/** Where a layer came from, for origins and messages. */
export interface LayerSite {
  /** The origin label stored with each value (`"default"`, a path, `"--cfg"`). */
  readonly origin: string;
  /** What messages cite (a path, or the whole `--cfg key=value`). */
  readonly site: string;
  /** Key path → line, when the layer is a file. */
  readonly lines: ReadonlyMap<string, number>;
}

/** Validates `document`; returns the valid part and every problem found. */
export function validateLayer(
  document: Record<string, unknown>,
  where: LayerSite,
): { layer: ConfigLayer; errors: string[] } {
  const ctx = new LayerContext(where.origin, where.site, where.lines, emptyLayer());
  for (const [key, value] of Object.entries(document)) {
    if (key === "conversation") conversation(ctx, value);
    else if (key === "assistant") validateAssistant(ctx, value);
    else if (key === "providers") providers(ctx, value);
    else if (key === "serve") validateServe(ctx, value);
    else if (key === "store") validateStore(ctx, value);
    else ctx.unknownKey([key], ["conversation", "assistant", "providers", "serve", "store"]);
  }
  return { layer: ctx.layer, errors: ctx.errors };
}

function conversation(ctx: LayerContext, value: unknown): void {
  if (!isTable(value)) {
    ctx.wrongType(["conversation"], value, "a table, e.g. [conversation.tools.'*']");
    return;
  }
  for (const [key, tools] of Object.entries(value)) {
    if (key !== "tools") {
      ctx.unknownKey(["conversation", key], ["tools"]);
      continue;
    }
    if (!isTable(tools)) {
      ctx.wrongType(
        ["conversation", "tools"],
        tools,
        "a table of tools, e.g. [conversation.tools.'*']",
      );
      continue;
    }
    for (const [name, table] of Object.entries(tools)) validateTool(ctx, name, table);
  }
}

function providers(ctx: LayerContext, value: unknown): void {
  if (!isTable(value)) {
    ctx.wrongType(["providers"], value, "a table, e.g. [providers.mcp.github]");
    return;
  }
  for (const [key, servers] of Object.entries(value)) {
    if (key === "llm") {
      llmProviders(ctx, servers);
      continue;
    }
    if (key !== "mcp") {
      ctx.unknownKey(["providers", key], ["mcp", "llm"]);
      continue;
    }
    if (!isTable(servers)) {
      ctx.wrongType(
        ["providers", "mcp"],
        servers,
        "a table of servers, e.g. [providers.mcp.github]",
      );
      continue;
    }
    for (const [name, table] of Object.entries(servers)) validateProvider(ctx, name, table);
  }
}

function llmProviders(ctx: LayerContext, value: unknown): void {
  if (!isTable(value)) {
    ctx.wrongType(
      ["providers", "llm"],
      value,
      "a table of model APIs, e.g. [providers.llm.openai]",
    );
    return;
  }
  for (const [name, table] of Object.entries(value)) validateLlmProvider(ctx, name, table);
}
