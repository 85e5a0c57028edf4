/**
 * A model behind the OpenAI chat completions API: OpenAI itself, or any
 * compatible server (Ollama, llama.cpp, vLLM, LM Studio, OpenRouter) through
 * `baseUrl`. The official `openai` client makes the request, parses the
 * server-sent events and retries failures that may pass (429, 5xx, lost
 * connections) with backoff, honouring `Retry-After`. This module streams
 * the answer: text pieces go to `onText` as they arrive, and tool calls are
 * assembled from their deltas (several per message, interleaved by index).
 *
 * @module
 */

import OpenAI from "openai";
import type { ToolCall } from "../review/tool_call.ts";
import { DEFAULT_MODEL_RETRIES } from "./default_model_retries.ts";
import {
  type ApiFailure,
  causeText,
  malformedAnswer,
  type ModelErrorContext,
} from "./model_error.ts";
import { toolCallOf } from "./_tool_call_of.ts";
import { readStream } from "./_read_stream.ts";
import { toOpenAiMessages, toOpenAiTools } from "./openai_messages.ts";
import type { AssistantMessage, Provider, ProviderRequest, TokenUsage } from "./provider.ts";
import { PUBLIC_BASE_URLS } from "../config/llm_provider_config.ts";

/** Options of {@linkcode OpenAiProvider}. */
export interface OpenAiProviderOptions {
  /** The model name as the server knows it, e.g. `"gpt-4.1-mini"` or `"qwen2.5:7b"`. */
  readonly model: string;
  /** The endpoint. Default: OpenAI's public one. */
  readonly baseUrl?: string;
  /** The API key. Default: none sent (local servers take none). */
  readonly apiKey?: string;
  /** The variable the key came from, named in a 401 message. Default `"OPENAI_API_KEY"`. */
  readonly apiKeyEnv?: string;
  /** Retries of a request that failed with 408, 409, 429, 5xx or no connection. Default {@linkcode DEFAULT_MODEL_RETRIES}. */
  readonly maxRetries?: number;
}

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

/**
 * The OpenAI-compatible provider.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OpenAiProvider } from "./openai_provider.ts";
 * const provider = new OpenAiProvider({ model: "qwen2.5:7b", baseUrl: "http://127.0.0.1:11434/v1" });
 * assert.equal(provider.model, "openai/qwen2.5:7b");
 * ```
 */
export class OpenAiProvider implements Provider {
  /** `openai/<model>`, recorded with each request. */
  readonly model: string;
  readonly #name: string;
  readonly #client: OpenAI;
  readonly #context: ModelErrorContext;

  /** A client for `options.model` at `options.baseUrl`. */
  constructor(options: OpenAiProviderOptions) {
    this.#name = options.model;
    this.model = `openai/${options.model}`;
    const baseUrl = options.baseUrl ?? PUBLIC_BASE_URLS.openai;
    const retries = options.maxRetries ?? DEFAULT_MODEL_RETRIES;
    const keySent = options.apiKey !== undefined && options.apiKey !== "";
    this.#client = new OpenAI({
      // The client insists on a key; without one, the header is removed below.
      apiKey: keySent ? options.apiKey : "no-key",
      baseURL: baseUrl,
      maxRetries: retries,
      // Nothing from the process environment (OPENAI_ORG_ID, …) is sent unasked.
      organization: null,
      project: null,
      ...(keySent ? {} : { defaultHeaders: { Authorization: null } }),
    });
    this.#context = {
      model: this.model,
      baseUrl,
      apiKeyEnv: options.apiKeyEnv ?? "OPENAI_API_KEY",
      keySent,
      retries,
    };
  }

  /** Streams one answer; rejects with a `provider_failed` error in one clear line. */
  async complete(request: ProviderRequest): Promise<AssistantMessage> {
    const answer = new StreamedAnswer(this.model, request);
    await readStream({
      open: () =>
        this.#client.chat.completions.create({
          model: this.#name,
          messages: toOpenAiMessages(request.messages),
          ...(request.tools.length === 0 ? {} : { tools: toOpenAiTools(request.tools) }),
          stream: true,
          stream_options: { include_usage: true },
        }, { signal: request.signal }),
      add: (event) => answer.add(event),
      failureOf: (error) => failureOf(error, request.signal),
      signal: request.signal,
      context: this.#context,
    });
    return answer.finish();
  }
}

/**
 * What a call cut by the output limit is told. spillway asks for no limit
 * (`max_completion_tokens`): the one that stopped the answer is the server's.
 */
const OPENAI_OUTPUT_LIMIT = {
  stop: 'finish_reason "length"',
  raise: "the server's limit on output tokens (spillway sets none)",
} as const;

/** One answer being assembled from chunks. */
class StreamedAnswer {
  #text = "";
  readonly #calls = new Map<number, { id: string; name: string; arguments: string }>();
  #usage: TokenUsage | undefined;
  #finished = false;
  #atOutputLimit = false;

  constructor(readonly model: string, readonly request: ProviderRequest) {}

  add(chunk: Chunk): void {
    if (chunk.usage) {
      this.#usage = {
        inputTokens: chunk.usage.prompt_tokens,
        outputTokens: chunk.usage.completion_tokens,
      };
    }
    // One choice is asked for (no `n`); a server that sends more sends index 0 first.
    const choice = chunk.choices.find((c) => c.index === 0) ?? chunk.choices[0];
    if (choice === undefined) return;
    if (choice.finish_reason) this.#finished = true;
    if (choice.finish_reason === "length") this.#atOutputLimit = true;
    const delta = choice.delta ?? {};
    const text = (delta.content ?? "") + (delta.refusal ?? "");
    if (text !== "") {
      this.#text += text;
      this.request.onText?.(text);
    }
    for (const [position, part] of (delta.tool_calls ?? []).entries()) {
      // Servers that leave out `index` send each call whole, in order.
      const index = part.index ?? this.#calls.size + position;
      let call = this.#calls.get(index);
      if (call === undefined) {
        call = { id: "", name: "", arguments: "" };
        this.#calls.set(index, call);
      }
      if (part.id) call.id = part.id;
      if (part.function?.name && call.name === "") call.name = part.function.name;
      call.arguments += part.function?.arguments ?? "";
    }
  }

  finish(): AssistantMessage {
    if (!this.#finished) {
      throw malformedAnswer(
        this.model,
        "the stream ended before the answer did (no finish_reason)",
      );
    }
    const calls = [...this.#calls.entries()].sort(([a], [b]) => a - b);
    const toolCalls: ToolCall[] = calls.map(([index, call], position) =>
      toolCallOf(
        {
          id: call.id || `call_${this.request.cycle + 1}_${index + 1}`,
          name: this.#nameOf(call.name, index),
        },
        call.arguments,
        // Calls stream one after another: only the last can have been cut by the limit.
        this.#atOutputLimit && position === calls.length - 1 ? OPENAI_OUTPUT_LIMIT : undefined,
      )
    );
    return {
      text: this.#text,
      toolCalls,
      ...(this.#usage === undefined ? {} : { usage: this.#usage }),
    };
  }

  #nameOf(name: string, index: number): string {
    if (name === "") throw malformedAnswer(this.model, `tool call ${index + 1} has no name`);
    return name;
  }
}

/** Reads the client's error into an {@linkcode ApiFailure}. */
function failureOf(error: unknown, signal: AbortSignal): ApiFailure {
  if (error instanceof OpenAI.APIUserAbortError || signal.aborted) {
    return { kind: "cancelled", message: "" };
  }
  if (error instanceof OpenAI.APIConnectionTimeoutError) return { kind: "timeout", message: "" };
  if (error instanceof OpenAI.APIConnectionError) {
    return { kind: "connection", message: causeText(error) };
  }
  if (error instanceof OpenAI.APIError) {
    const body = error.error as { message?: unknown } | undefined;
    const message = typeof body?.message === "string" ? body.message : error.message;
    return {
      kind: "status",
      ...(error.status === undefined ? {} : { status: error.status }),
      message,
      ...(typeof error.code === "string" ? { code: error.code } : {}),
    };
  }
  return { kind: "connection", message: causeText(error) };
}
