/**
 * spillway in the Claude Agent SDK (`@anthropic-ai/claude-agent-sdk` 0.3):
 * a `PostToolUse` hook. Claude Code (the native `claude` binary the SDK
 * runs) calls it with each MCP tool's output before the output becomes the
 * call's `tool_result`; it caps, spills and records the output, then
 * answers `updatedToolOutput` with the recorded text, which Claude Code
 * sends in its place. The hook shows one call, never the step: the ceiling
 * holds per call (docs/adapters.md).
 *
 * Claude Code keeps a result of over 25,000 tokens from the hook (it hands
 * the hook an error naming a file instead) and moves a result of over
 * about 50,000 characters, the hook's too, into a file the model is shown
 * 2 KB of, unless the tool's `_meta["anthropic/maxResultSizeChars"]` (at
 * most 500,000) allows more: {@linkcode SpillwayHooks.inline} sets it, and
 * the ceiling here is 500,000 bytes, so what the model reads is the
 * recorded text. Imports the SDK's types only.
 *
 * ```js ignore
 * import { createSdkMcpServer, query, tool } from "@anthropic-ai/claude-agent-sdk";
 * import { spillwayHooks } from "spillway/claude-agent-sdk";
 * const spillway = await spillwayHooks();
 * const logs = createSdkMcpServer({ name: "logs", tools: [spillway.inline(tool(…))] });
 * for await (const m of spillway.guarded(query({ prompt, options: { mcpServers: { logs },
 *   hooks: spillway.hooks } }))) console.log(m);
 * ```
 *
 * @module
 */

import type {
  HookCallbackMatcher,
  HookEvent,
  SdkMcpToolDefinition,
  SyncHookJSONOutput,
} from "@anthropic-ai/claude-agent-sdk";
import { ToolOutputCap, type ToolOutputCapOptions } from "./tool_output_cap.ts";

/**
 * The most characters Claude Code shows a model inline from an MCP tool
 * that allows it (`_meta["anthropic/maxResultSizeChars"]`): measured with
 * Claude Code 2.1.337. It is the default ceiling here, in bytes (a text's
 * UTF-8 bytes are never fewer than its characters).
 */
export const CLAUDE_CODE_INLINE_CHARS = 500_000;

/** The hooks, the cap they record with, and the helpers that keep the record exact. */
export interface SpillwayHooks {
  /** The cap: its conversation id, `readOutput` for spilled outputs, `close()`. */
  readonly cap: ToolOutputCap;
  /** For `query({ options: { hooks: spillway.hooks } })`. */
  readonly hooks: Partial<Record<HookEvent, HookCallbackMatcher[]>>;
  /**
   * `tool` allowed {@linkcode CLAUDE_CODE_INLINE_CHARS} characters inline: without it Claude Code
   * keeps an output over 25,000 tokens from the hook and moves a cut over about 50,000
   * characters into a file, so the model would not read what was recorded.
   */
  inline<T extends Pick<SdkMcpToolDefinition, "_meta">>(tool: T): T;
  /**
   * `messages` (a `query`) as they come, then, when an output could not be recorded, the
   * `SpillwayError` (`store_failed`) thrown: the hook stopped the session instead of sending it.
   */
  guarded<T>(messages: AsyncIterable<T>): AsyncGenerator<T, void, undefined>;
}

/**
 * `PostToolUse` hooks that cap, record and spill each MCP tool's output.
 * Close `spillway.cap` when done.
 *
 * @param options the cap's options (configuration, store, notices); `batchBytes` defaults to
 *   {@linkcode CLAUDE_CODE_INLINE_CHARS}
 * @throws {RangeError} when `batchBytes` is above {@linkcode CLAUDE_CODE_INLINE_CHARS}
 */
export async function spillwayHooks(options: ToolOutputCapOptions = {}): Promise<SpillwayHooks> {
  const batchBytes = options.batchBytes ?? CLAUDE_CODE_INLINE_CHARS;
  if (batchBytes > CLAUDE_CODE_INLINE_CHARS) {
    throw new RangeError(
      `batchBytes = ${batchBytes} is above the ${CLAUDE_CODE_INLINE_CHARS} characters Claude Code ` +
        "shows inline: a larger cut would reach the model as a file's first 2 KB, not as recorded",
    );
  }
  const cap = await ToolOutputCap.open({ ...options, batchBytes });
  let failure: unknown;
  const postToolUse = async (input: unknown): Promise<SyncHookJSONOutput> => {
    if (!isRecord(input) || input.hook_event_name !== "PostToolUse") return {};
    const output = outputOf(input.tool_response);
    if (output === undefined) return {};
    try {
      const [recorded] = await cap.capStep([{
        name: toolName(input),
        callId: String(input.tool_use_id),
        arguments: isRecord(input.tool_input) ? input.tool_input : {},
        output: output.value,
      }]);
      return rewrite(output.blocks ? [{ type: "text", text: recorded!.text }] : recorded!.text);
    } catch (error) {
      // A throwing hook lets the output through: stop the session, send a note in its place.
      failure ??= error;
      return {
        continue: false,
        stopReason: `spillway: a tool output could not be recorded (${String(error)})`,
        ...rewrite([{ type: "text", text: "spillway: this output could not be recorded" }]),
      };
    }
  };
  return {
    cap,
    hooks: { PostToolUse: [{ hooks: [postToolUse], onFailure: "block" }] },
    inline: (tool) => ({
      ...tool,
      _meta: { ...tool._meta, "anthropic/maxResultSizeChars": CLAUDE_CODE_INLINE_CHARS },
    }),
    async *guarded(messages) {
      try {
        yield* messages;
      } catch (error) {
        throw failure ?? error;
      }
      if (failure !== undefined) throw failure;
    },
  };
}

/**
 * The tool's own name, which picks its `[conversation.tools.NAME]` settings: Claude Code's
 * `mcp__SERVER__TOOL` without the `mcp__SERVER__`.
 */
function toolName(input: Record<string, unknown>): string {
  const name = String(input.tool_name);
  const server = isRecord(input.mcp_server) ? input.mcp_server.name : undefined;
  const prefix = typeof server === "string" ? `mcp__${server}__` : undefined;
  if (prefix !== undefined && name.startsWith(prefix)) return name.slice(prefix.length);
  return /^mcp__.+?__(.+)$/.exec(name)?.[1] ?? name;
}

function rewrite(updatedToolOutput: unknown): SyncHookJSONOutput {
  return { hookSpecificOutput: { hookEventName: "PostToolUse", updatedToolOutput } };
}

/**
 * A tool response spillway caps: a text; MCP content blocks (texts joined, anything else as
 * its JSON text). Built-in tools' structured responses are `undefined`: they pass as they are.
 */
function outputOf(response: unknown): { value: unknown; blocks: boolean } | undefined {
  if (typeof response === "string") return { value: response, blocks: false };
  if (!Array.isArray(response) || !response.every(isRecord)) return undefined;
  if (response.every((block) => block.type === "text" && typeof block.text === "string")) {
    return { value: response.map((block) => block.text).join(""), blocks: true };
  }
  return { value: response, blocks: true };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
