/**
 * A model behind the Anthropic Messages API, through the official
 * `@anthropic-ai/sdk` client (which parses the server-sent events and
 * retries 408, 409, 429, 5xx and lost connections with backoff, honouring
 * `Retry-After`). The answer streams: `text_delta` pieces go to `onText` as
 * they arrive, and each `tool_use` block is assembled from its
 * `input_json_delta` pieces.
 *
 * @module
 */

import Anthropic from "@anthropic-ai/sdk";
import { getLogger } from "@logtape/logtape";
import { DEFAULT_ANTHROPIC_MAX_TOKENS, PUBLIC_BASE_URLS } from "../config/llm_provider_config.ts";
import type { ToolCall } from "../review/tool_call.ts";
import { toAnthropicMessages, toAnthropicTools } from "./anthropic_messages.ts";
import { DEFAULT_MODEL_RETRIES } from "./default_model_retries.ts";
import {
  type ApiFailure,
  causeText,
  malformedAnswer,
  type ModelErrorContext,
} from "./model_error.ts";
import type { AssistantMessage, Provider, ProviderRequest, TokenUsage } from "./provider.ts";
import { toolCallOf } from "./_tool_call_of.ts";
import { readStream } from "./_read_stream.ts";
import { oneLineWarning, routeConsoleWarnings, sdkLogger } from "./_sdk_warnings.ts";

/** Options of {@linkcode AnthropicProvider}. */
export interface AnthropicProviderOptions {
  /** The model name, e.g. `"claude-sonnet-4-6"`. */
  readonly model: string;
  /** The endpoint. Default: Anthropic's public one. */
  readonly baseUrl?: string;
  /** The API key. Default: none sent (for a compatible local server). */
  readonly apiKey?: string;
  /** The variable the key came from, named in a 401 message. Default `"ANTHROPIC_API_KEY"`. */
  readonly apiKeyEnv?: string;
  /** Retries of a request that failed with 408, 409, 429, 5xx or no connection. Default {@linkcode DEFAULT_MODEL_RETRIES}. */
  readonly maxRetries?: number;
  /**
   * The most tokens an answer may take (`max_tokens`, which the API
   * requires), a whole number of at least 1. Default
   * {@linkcode DEFAULT_ANTHROPIC_MAX_TOKENS}.
   */
  readonly maxTokens?: number;
  /** Told when an image is sent as its placeholder line. Default: nobody. */
  readonly notice?: (text: string) => void;
}

type StreamEvent = Anthropic.Messages.RawMessageStreamEvent;

/**
 * The Anthropic provider.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AnthropicProvider } from "./anthropic_provider.ts";
 * const provider = new AnthropicProvider({ model: "claude-sonnet-4-6", apiKey: "sk-ant-…" });
 * assert.equal(provider.model, "anthropic/claude-sonnet-4-6");
 * ```
 */
export class AnthropicProvider implements Provider {
  /** `anthropic/<model>`, recorded with each request. */
  readonly model: string;
  /** The Messages API takes images inside `tool_result`. */
  readonly sendsImages = true;
  readonly #name: string;
  readonly #client: Anthropic;
  readonly #context: ModelErrorContext;
  readonly #notice: ((text: string) => void) | undefined;
  readonly #warn: (text: string) => void;
  readonly #maxTokens: number;

  /**
   * A client for `options.model` at `options.baseUrl`.
   *
   * @throws {RangeError} when `options.maxTokens` is not a whole number of at least 1
   */
  constructor(options: AnthropicProviderOptions) {
    const maxTokens = options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS;
    if (!Number.isSafeInteger(maxTokens) || maxTokens < 1) {
      throw new RangeError(`maxTokens must be a whole number of at least 1, got \`${maxTokens}\``);
    }
    this.#maxTokens = maxTokens;
    this.#name = options.model;
    this.model = `anthropic/${options.model}`;
    // Each notice once: the same history (and its oversized image) goes with every request.
    const told = new Set<string>();
    const notice = options.notice;
    this.#notice = notice === undefined ? undefined : (text) => {
      if (told.has(text)) return;
      told.add(text);
      notice(text);
    };
    const baseUrl = options.baseUrl ?? PUBLIC_BASE_URLS.anthropic;
    const retries = options.maxRetries ?? DEFAULT_MODEL_RETRIES;
    const keySent = options.apiKey !== undefined && options.apiKey !== "";
    this.#client = new Anthropic({
      // A key passed here is the client's only credential: it looks for no other.
      apiKey: keySent ? options.apiKey : "no-key",
      baseURL: baseUrl,
      maxRetries: retries,
      ...(keySent ? {} : { defaultHeaders: { Authorization: null } }),
      logger: sdkLogger("anthropic"),
    });
    // The SDK's console warnings (a deprecated model, on every request): once,
    // on one line, to the notice sink or else to the log.
    const logged = new Set<string>();
    this.#warn = (text) => {
      const line = `warning: ${this.model}: ${oneLineWarning(text)}`;
      if (this.#notice !== undefined) this.#notice(line);
      else if (!logged.has(line)) {
        logged.add(line);
        getLogger(["spillway", "provider", "anthropic"]).warn("{line}", { line });
      }
    };
    this.#context = {
      model: this.model,
      baseUrl,
      apiKeyEnv: options.apiKeyEnv ?? "ANTHROPIC_API_KEY",
      keySent,
      retries,
    };
  }

  /** Streams one answer; rejects with a `provider_failed` error in one clear line. */
  async complete(request: ProviderRequest): Promise<AssistantMessage> {
    const answer = new StreamedAnswer(this.model, request, {
      stop: 'stop_reason "max_tokens"',
      raise: `max_tokens under [providers.llm.anthropic], now ${this.#maxTokens}`,
    });
    await readStream({
      open: () =>
        routeConsoleWarnings(() =>
          this.#client.messages.create({
            model: this.#name,
            max_tokens: this.#maxTokens,
            messages: toAnthropicMessages(
              request.messages,
              this.#notice === undefined ? {} : { notice: this.#notice },
            ),
            ...(request.tools.length === 0 ? {} : { tools: toAnthropicTools(request.tools) }),
            stream: true,
          }, { signal: request.signal }), this.#warn),
      add: (event) => answer.add(event),
      failureOf: (error) => failureOf(error, request.signal),
      signal: request.signal,
      context: this.#context,
    });
    return answer.finish();
  }
}

type Block =
  | { readonly kind: "text" }
  | {
    readonly kind: "tool";
    readonly id: string;
    readonly name: string;
    json: string;
    readonly start: unknown;
  }
  | { readonly kind: "other" };

/** One answer being assembled from stream events. */
class StreamedAnswer {
  #text = "";
  readonly #blocks = new Map<number, Block>();
  #input = 0;
  #output = 0;
  #reported = false;
  #stopped = false;
  #atOutputLimit = false;

  /** @param outputLimit what a call cut by the output limit is told */
  constructor(
    readonly model: string,
    readonly request: ProviderRequest,
    readonly outputLimit: NonNullable<ToolCall["outputLimit"]>,
  ) {}

  add(event: StreamEvent): void {
    switch (event.type) {
      case "message_start": {
        const usage = event.message.usage;
        this.#input = usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) +
          (usage.cache_read_input_tokens ?? 0);
        this.#output = usage.output_tokens;
        this.#reported = true;
        break;
      }
      case "content_block_start": {
        const block = event.content_block;
        if (block.type === "text") {
          this.#blocks.set(event.index, { kind: "text" });
          this.#addText(block.text);
        } else if (block.type === "tool_use") {
          this.#blocks.set(event.index, {
            kind: "tool",
            id: block.id,
            name: block.name,
            json: "",
            start: block.input,
          });
        } else {
          this.#blocks.set(event.index, { kind: "other" }); // thinking, server tools: not ours
        }
        break;
      }
      case "content_block_delta": {
        const block = this.#blocks.get(event.index);
        if (event.delta.type === "text_delta") this.#addText(event.delta.text);
        else if (event.delta.type === "input_json_delta" && block?.kind === "tool") {
          block.json += event.delta.partial_json;
        }
        break;
      }
      case "message_delta": {
        const usage = event.usage;
        if (usage.input_tokens !== null && usage.input_tokens !== undefined) {
          this.#input = usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) +
            (usage.cache_read_input_tokens ?? 0);
        }
        this.#output = usage.output_tokens; // cumulative
        this.#reported = true;
        if (event.delta.stop_reason === "max_tokens") this.#atOutputLimit = true;
        break;
      }
      case "message_stop":
        this.#stopped = true;
        break;
      case "content_block_stop":
        break;
    }
  }

  finish(): AssistantMessage {
    if (!this.#stopped) {
      throw malformedAnswer(this.model, "the stream ended before the answer did (no message_stop)");
    }
    const tools = [...this.#blocks.entries()].sort(([a], [b]) => a - b)
      .flatMap(([, block]) => block.kind === "tool" ? [block] : []);
    const toolCalls: ToolCall[] = tools.map((block, index) => {
      const json = block.json === "" ? JSON.stringify(block.start ?? {}) : block.json;
      // Blocks stream one after another: only the last can have been cut by the limit.
      const cut = this.#atOutputLimit && index === tools.length - 1;
      return toolCallOf(
        { id: block.id, name: block.name },
        json,
        cut ? this.outputLimit : undefined,
      );
    });
    const usage: TokenUsage | undefined = this.#reported
      ? { inputTokens: this.#input, outputTokens: this.#output }
      : undefined;
    return { text: this.#text, toolCalls, ...(usage === undefined ? {} : { usage }) };
  }

  #addText(text: string): void {
    if (text === "") return;
    this.#text += text;
    this.request.onText?.(text);
  }
}

/** Reads the client's error into an {@linkcode ApiFailure}. */
function failureOf(error: unknown, signal: AbortSignal): ApiFailure {
  if (error instanceof Anthropic.APIUserAbortError || signal.aborted) {
    return { kind: "cancelled", message: "" };
  }
  if (error instanceof Anthropic.APIConnectionTimeoutError) return { kind: "timeout", message: "" };
  if (error instanceof Anthropic.APIConnectionError) {
    return { kind: "connection", message: causeText(error) };
  }
  if (error instanceof Anthropic.APIError) {
    return {
      kind: "status",
      ...(error.status === undefined ? {} : { status: error.status }),
      message: error.apiMessage ?? error.message,
      ...(error.type === null ? {} : { code: error.type }),
    };
  }
  return { kind: "connection", message: causeText(error) };
}
