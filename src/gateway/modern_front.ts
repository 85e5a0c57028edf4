/**
 * `spillway serve --http`'s face for MCP 2026-07-28: requests without a
 * session. Each request is its client's (its token was checked in front),
 * joins the conversation {@linkcode modernConversationKey} names within
 * that client, and is answered by a server made for it over that
 * conversation by the SDK's per-request handler (`createMcpHandler`): one
 * JSON body, or an SSE stream when progress or log messages come before the
 * result. The calls of one conversation in flight together are one batch:
 * capped, recorded and released together, as a 2025 session's are.
 *
 * A conversation stays open here while its client keeps calling: it is
 * closed after `serve.session_idle_timeout` without a request (the key's
 * next request opens it again: its id is the key's, on every gateway), and
 * at most `serve.max_sessions` are open at once (a request past it is
 * answered 503).
 * A request whose connection closes before its answer is the client's
 * cancellation: its call is recorded as cancelled (the client disconnected),
 * never as delivered. A call whose tool asks the client for input
 * (elicitation, sampling, roots) answers `input_required` and goes on when
 * the client calls again (`input_rounds.ts`). Each client has its own handler, so what its listen
 * streams hear (tools, and its own prompts and resources, changed) reaches
 * no other client.
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { Duration } from "../config/duration.ts";
import { reasonText } from "../errors/reason_text.ts";
import { createMcpHandler, type McpHttpHandler } from "../service/sdk.ts";
import type { OpenConversation } from "./_open_session.ts";
import type { Gateway } from "./gateway.ts";
import { MAX_RETRY_AFTER_S } from "./http_sessions.ts";
import { modernConversationKey } from "./modern_conversation_key.ts";
import { slowAnswerStream } from "./_slow_answer_stream.ts";
import { DEFAULT_INPUT_ROUNDS, InputRounds, type InputRoundsOptions } from "./input_rounds.ts";

const log = getLogger(["spillway", "gateway"]);

/** The requests a 2026-07-28 client may send the gateway (its servers answer these). */
const MODERN_METHODS = new Set([
  "server/discover",
  "subscriptions/listen",
  "tools/list",
  "tools/call",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "completion/complete",
]);

/** Options of {@linkcode ModernFront}. */
export interface ModernFrontOptions {
  /** How many conversations at once (`serve.max_sessions`). */
  readonly maxConversations: number;
  /** How long a conversation may go without a request, in ms (`serve.session_idle_timeout`). */
  readonly idleTimeoutMs: number;
  /** The limits of calls waiting for their client's input. Default: {@linkcode DEFAULT_INPUT_ROUNDS}. */
  readonly inputs?: InputRoundsOptions;
}

/** The 2026-07-28 requests of one gateway. */
export class ModernFront {
  readonly #gateway: Gateway;
  readonly #options: ModernFrontOptions;
  /** Each client's handler, made at its first request. */
  readonly #handlers = new Map<string, McpHttpHandler>();
  /** The open conversations, by client and key. */
  readonly #conversations = new Map<string, OpenConversation>();
  /** The calls waiting for their client's input between `input_required` rounds. */
  readonly #rounds: InputRounds;
  #closing = false;

  /**
   * @param gateway where conversations are opened
   * @param options the limits; see {@linkcode ModernFrontOptions}
   */
  constructor(gateway: Gateway, options: ModernFrontOptions) {
    this.#gateway = gateway;
    this.#options = options;
    this.#rounds = new InputRounds(options.inputs ?? DEFAULT_INPUT_ROUNDS);
    gateway.onListChanged((kind, client) => {
      for (const [name, handler] of this.#handlers) {
        if (kind === "tools") handler.notify.toolsChanged();
        else if (name === client && kind === "prompts") handler.notify.promptsChanged();
        else if (name === client) handler.notify.resourcesChanged();
      }
    });
  }

  /** How many conversations are open now. */
  get size(): number {
    return this.#conversations.size;
  }

  /**
   * Answers `request` (a 2026-07-28 POST whose JSON body is `body`) of
   * `client`.
   */
  async handle(request: Request, body: unknown, client: string): Promise<Response> {
    if (this.#closing) return jsonError(503, "spillway serve is shutting down");
    const conversationKey = modernConversationKey(request.headers, body);
    const key = `${client}\n${conversationKey}`;
    let conversation = this.#conversations.get(key);
    if (conversation === undefined) {
      if (this.#conversations.size >= this.#options.maxConversations) return this.#full();
      try {
        conversation = this.#open(key, client, conversationKey);
      } catch (error) {
        return jsonError(503, reasonText(error));
      }
    }
    const method = (body as { method?: unknown }).method;
    // A method no server of ours answers (a 2025 one such as `initialize` or
    // `ping` among them) is a 404, as the revision says, not an answer in the body.
    if (typeof method === "string" && "id" in (body as object) && !MODERN_METHODS.has(method)) {
      return jsonError(
        404,
        `Method not found: ${method}`,
        {},
        -32601,
        (body as { id?: unknown }).id,
      );
    }
    // A call leaves the conversation's idle state by itself; anything else says the client is there.
    if (method !== "tools/call") conversation.session.touch();
    const options = {
      parsedBody: body,
      authInfo: { token: "", clientId: client, scopes: [], extra: { conversation: key } },
    };
    if (method !== "tools/call") return await this.#handler(client).fetch(request, options);
    // A call is cancelled by its client closing the request: noticed by a stream
    // begun once the call has taken a while (`_slow_answer_stream.ts`).
    const gone = new AbortController();
    request.signal.addEventListener("abort", () => gone.abort(), { once: true });
    // Its body was read (it is `parsedBody`): the request passed on is the head alone.
    const head = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      signal: gone.signal,
    });
    const answer = this.#handler(client).fetch(head, options);
    return await slowAnswerStream(answer, { gone: () => gone.abort() });
  }

  /** Closes every conversation (their running calls are cancelled and recorded) and handler. */
  async close(): Promise<void> {
    this.#closing = true;
    this.#rounds.close("spillway serve is shutting down");
    const conversations = [...this.#conversations.values()];
    this.#conversations.clear();
    await Promise.allSettled(conversations.map((c) => c.session.close()));
    await Promise.allSettled([...this.#handlers.values()].map((handler) => handler.close()));
    this.#handlers.clear();
  }

  #open(key: string, client: string, conversationKey: string): OpenConversation {
    // Its conversation is the key's on every gateway (modern_conversation_id.ts).
    const conversation = this.#gateway.open({
      client,
      idleTimeoutMs: this.#options.idleTimeoutMs,
      conversationKey,
    });
    this.#conversations.set(key, conversation);
    // However it ends (its idle timeout, the gateway's shutdown), an ended
    // conversation is forgotten: the key's next request opens a new one.
    void conversation.closing.then(() => {
      if (this.#conversations.get(key) === conversation) this.#conversations.delete(key);
    });
    return conversation;
  }

  #handler(client: string): McpHttpHandler {
    let handler = this.#handlers.get(client);
    if (handler === undefined) {
      handler = createMcpHandler((ctx) => {
        const key = ctx.authInfo?.extra?.conversation;
        const conversation = typeof key === "string" ? this.#conversations.get(key) : undefined;
        if (conversation === undefined) throw new Error("the request's conversation has ended");
        // Over HTTP a 2026-07-28 client cancels by closing its request: an abort is that.
        return conversation.server({ disconnected: () => true, rounds: this.#rounds });
      }, {
        legacy: "reject",
        responseMode: "auto",
        onerror: (error) => log.debug("a 2026-07-28 request: {error}", { error }),
      });
      this.#handlers.set(client, handler);
    }
    return handler;
  }

  /** The answer to a new conversation past `maxConversations`. */
  #full(): Response {
    const { maxConversations, idleTimeoutMs } = this.#options;
    const retryAfter = Math.min(MAX_RETRY_AFTER_S, Math.ceil(idleTimeoutMs / 1000));
    const message = `spillway serve has ${maxConversations} conversations open, the most it ` +
      `keeps (serve.max_sessions = ${maxConversations}): try again later, when one has been ` +
      `idle for ${Duration.fromMs(idleTimeoutMs)} (serve.session_idle_timeout)`;
    return jsonError(503, message, { "retry-after": String(retryAfter) });
  }
}

function jsonError(
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = -32000,
  id: unknown = null,
) {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: id ?? null }),
    { status, headers: { "content-type": "application/json", ...headers } },
  );
}
