/**
 * What every framework adapter shares: a step's tool outputs, as an agent
 * framework holds them, capped with spillway's own cuts (each tool's
 * `size_threshold` and `truncation`, then the 2 MiB batch ceiling spent
 * largest first), each whole output spilled to the blob store, the capped
 * texts recorded (`tool_call_request` + `tool_call_response`) and flushed,
 * and only then handed back for the framework to send. A failure to record
 * throws: the model is sent nothing that was not recorded.
 *
 * It is the review layer the gateway uses, applied to outputs a framework
 * ran itself; the adapters (`spillway/ai-sdk`, `spillway/openai-agents`,
 * `spillway/langchain`, `spillway/mastra`, `spillway/claude-agent-sdk`)
 * only translate their framework's shapes to {@linkcode ToolOutput}.
 *
 * @module
 */

import process from "node:process";
import type { BlobStore } from "../blobs/blob_store.ts";
import { isBlobRef } from "../blobs/blob_ref.ts";
import { readBlobPage } from "../blobs/read_blob_page.ts";
import { parseConfig } from "../config/parse_config.ts";
import type { SpillwayConfig } from "../config/spillway_config.ts";
import type { NoticeSink } from "../machines/turn_dependencies.ts";
import { capReview } from "../review/cap_review.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../review/max_tool_response_batch_bytes.ts";
import { formatNotice, type NoticeFact } from "../review/notice.ts";
import { acceptedReview, type Review } from "../review/review.ts";
import { spendBatchBudget } from "../review/spend_batch_budget.ts";
import { utf8Length } from "../size/cap_text.ts";
import { openStore } from "../runtime/open_store.ts";
import type { StreamEvent } from "../stream/events.ts";
import { newConversationId } from "../stream/new_conversation_id.ts";
import type { ConversationStream, StreamStore } from "../stream/stream_store.ts";

/** One tool output as a framework holds it. */
export interface ToolOutput {
  /** The tool's name (it picks the `[conversation.tools.NAME]` settings). */
  readonly name: string;
  /** The call id the framework gave the call. */
  readonly callId: string;
  /** The call's arguments, recorded with it. Default `{}`. */
  readonly arguments?: Readonly<Record<string, unknown>> | undefined;
  /** The output: a text as is, anything else as its JSON text. */
  readonly output: unknown;
  /** Whether it reports a failure. Default `false`. */
  readonly isError?: boolean | undefined;
}

/** One output as recorded, which is what the framework must send. */
export interface CappedOutput {
  /** The call id. */
  readonly callId: string;
  /** The text recorded and to send (marker and reference lines included when cut). */
  readonly text: string;
  /** Whether a cap cut it. */
  readonly truncated: boolean;
  /** The whole output's reference (`read_tool_output`'s `ref`), when it was spilled. */
  readonly ref?: string;
}

/** How {@linkcode ToolOutputCap.open} sets up. Every field is optional. */
export interface ToolOutputCapOptions {
  /**
   * The configuration: `[conversation.tools.NAME]` `size_threshold`, `truncation`,
   * `truncation_split`, and `[store]`. Default: spillway's defaults
   * (`parseConfig("")`); pass `await loadConfig()` for the user's files.
   */
  readonly config?: SpillwayConfig | undefined;
  /** The workspace the `[store]` of `config` opens under. Default `SPILLWAY_WORKSPACE`, else `.spillway`. */
  readonly workspace?: string | undefined;
  /** The stream store to record into. Default: the one `config`'s `[store]` names. */
  readonly store?: StreamStore | undefined;
  /** Where whole outputs are kept. Default: the one `config`'s `[store]` names. */
  readonly blobs?: BlobStore | undefined;
  /** Whether a cut output's whole text is kept in `blobs` and named by its cut. Default `true`. */
  readonly spill?: boolean | undefined;
  /** The conversation recorded into. Default: a new id. */
  readonly conversationId?: string | undefined;
  /** Where the notice lines go. Default: one line on stderr per cut. */
  readonly notices?: NoticeSink | undefined;
  /** The ceiling of one step's outputs, in bytes. Default {@linkcode MAX_TOOL_RESPONSE_BATCH_BYTES}. */
  readonly batchBytes?: number | undefined;
}

/** Prints each notice as one line on stderr. */
const STDERR_NOTICES: NoticeSink = {
  notice: (fact) => void process.stderr.write(formatNotice(fact) + "\n"),
};

/**
 * Caps, spills and records tool outputs for a framework's loop.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolOutputCap } from "./tool_output_cap.ts";
 * import { parseConfig } from "../config/parse_config.ts";
 * import { MemoryStreamStore } from "../stream/memory_stream_store.ts";
 * const lines: string[] = [];
 * const cap = await ToolOutputCap.open({
 *   config: parseConfig('[conversation.tools.big]\nsize_threshold = "1KB"'),
 *   store: new MemoryStreamStore(),
 *   spill: false,
 *   notices: { notice: (fact) => void lines.push(fact.tool) },
 * });
 * const [out] = await cap.capStep([{ name: "big", callId: "c1", output: "x".repeat(5000) }]);
 * assert.ok(out!.text.includes("... [truncated, 4.8 KB → 1.0 KB]"));
 * assert.deepEqual(lines, ["big"]);
 * await cap.close();
 * ```
 */
export class ToolOutputCap {
  readonly #config: SpillwayConfig;
  readonly #stream: ConversationStream;
  readonly #blobs: BlobStore | undefined;
  readonly #notices: NoticeSink;
  readonly #batchBytes: number;
  readonly #close: () => Promise<void>;
  #tail: Promise<unknown> = Promise.resolve();

  private constructor(
    parts: {
      config: SpillwayConfig;
      stream: ConversationStream;
      blobs: BlobStore | undefined;
      notices: NoticeSink;
      batchBytes: number;
      close: () => Promise<void>;
    },
  ) {
    this.#config = parts.config;
    this.#stream = parts.stream;
    this.#blobs = parts.blobs;
    this.#notices = parts.notices;
    this.#batchBytes = parts.batchBytes;
    this.#close = parts.close;
  }

  /**
   * Opens the conversation outputs are recorded into.
   *
   * @throws {RangeError} when `batchBytes` is not a positive whole number
   */
  static async open(options: ToolOutputCapOptions = {}): Promise<ToolOutputCap> {
    const batchBytes = options.batchBytes ?? MAX_TOOL_RESPONSE_BATCH_BYTES;
    if (!Number.isSafeInteger(batchBytes) || batchBytes <= 0) {
      throw new RangeError(`batchBytes must be a positive whole number, got \`${batchBytes}\``);
    }
    const config = options.config ?? parseConfig("");
    const needsStore = options.store === undefined ||
      (options.blobs === undefined && options.spill !== false);
    const env = process.env;
    const opened = needsStore
      ? openStore(config, options.workspace ?? env.SPILLWAY_WORKSPACE ?? ".spillway", env)
      : undefined;
    await opened?.check();
    const store = options.store ?? opened!.conversations;
    const stream = await store.open(options.conversationId ?? newConversationId());
    const blobs = options.spill === false ? undefined : options.blobs ?? opened!.blobs;
    return new ToolOutputCap({
      config,
      stream,
      blobs,
      notices: options.notices ?? STDERR_NOTICES,
      batchBytes,
      close: async () => {
        await stream.close();
        await opened?.close();
      },
    });
  }

  /** The recorded conversation's id. */
  get conversationId(): string {
    return this.#stream.id;
  }

  /**
   * Caps one step's outputs together (the ceiling is spent over all of
   * them), records them durably, and returns what was recorded, in order.
   * Steps are recorded one after another, in the order they were given.
   *
   * @throws {SpillwayError} `store_failed` when they could not be recorded
   */
  capStep(outputs: readonly ToolOutput[]): Promise<CappedOutput[]> {
    const run = this.#tail.then(() => this.#capStep(outputs), () => this.#capStep(outputs));
    this.#tail = run.catch(() => undefined);
    return run;
  }

  async #capStep(outputs: readonly ToolOutput[]): Promise<CappedOutput[]> {
    const notices: NoticeFact[] = [];
    const contents = outputs.map(({ output }) =>
      typeof output === "string" ? output : JSON.stringify(output) ?? ""
    );
    const sizes = contents.map(utf8Length);
    const overCeiling = sizes.reduce((sum, size) => sum + size, 0) > this.#batchBytes;
    const reviews: Review[] = [];
    for (const [i, output] of outputs.entries()) {
      const tool = this.#config.tool(output.name);
      const threshold = tool.sizeThreshold();
      let review = acceptedReview(output.name, {
        id: output.callId,
        content: contents[i]!,
        isError: output.isError ?? false,
      });
      const over = overCeiling ||
        (threshold.bytes !== undefined && sizes[i]! > threshold.bytes.bytes);
      if (this.#blobs !== undefined && over) {
        // Kept whole before anything is sent: the cut names it.
        const { ref, bytes } = await this.#blobs.put(contents[i]!);
        review = { ...review, spilled: { ref, bytes } };
      }
      const capped = capReview(review, threshold, { truncation: tool.truncation() });
      if (capped.notice !== undefined) notices.push(capped.notice);
      reviews.push(capped.review);
    }
    const spent = spendBatchBudget(reviews, this.#batchBytes);
    notices.push(...spent.notices);
    const events: StreamEvent[] = [];
    for (const [i, output] of outputs.entries()) {
      events.push({
        type: "tool_call_request",
        id: output.callId,
        name: output.name,
        arguments: output.arguments ?? {},
      });
      const { response } = spent.reviews[i]!;
      events.push({
        type: "tool_call_response",
        id: output.callId,
        content: response.content,
        is_error: response.isError,
      });
    }
    await this.#stream.append(events);
    await this.#stream.flush();
    for (const fact of notices) this.#notices.notice(fact);
    return spent.reviews.map(({ response, spilled }, i) => ({
      callId: outputs[i]!.callId,
      text: response.content,
      truncated: notices.some((fact) => fact.callId === outputs[i]!.callId),
      ...(spilled === undefined ? {} : { ref: spilled.ref }),
    }));
  }

  /**
   * A page of a spilled output: `length` bytes from byte `offset` (each edge
   * moved back to a character's start), or `undefined` when there is none.
   */
  async readOutput(ref: string, offset = 0, length = 64 * 1024): Promise<string | undefined> {
    if (this.#blobs === undefined || !isBlobRef(ref)) return undefined;
    return (await readBlobPage(this.#blobs, ref, offset, length))?.text;
  }

  /** Closes the conversation (and the store it opened). Idempotent. */
  async close(): Promise<void> {
    await this.#tail;
    await this.#close();
  }
}
