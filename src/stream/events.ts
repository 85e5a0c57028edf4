/**
 * The events of a conversation stream: one JSON object per line
 * of `events.jsonl`. Field names are snake_case on disk.
 *
 * @module
 */

/** A user prompt starts a turn. */
export interface TurnStartEvent {
  /** `"turn_start"`. */
  readonly type: "turn_start";
  /** The turn's id (`<conversation>/<n>`). */
  readonly turn_id: string;
  /** The user's prompt. */
  readonly prompt: string;
  /** ISO 8601 time. */
  readonly at: string;
}

/** A request sent to the model (its size in bytes, not its body). */
export interface ChatRequestEvent {
  /** `"chat_request"`. */
  readonly type: "chat_request";
  /** The turn's id. */
  readonly turn_id: string;
  /** 0 for the first request of the turn. */
  readonly cycle: number;
  /** UTF-8 bytes of the request's messages. */
  readonly bytes: number;
  /** The model asked (`"openai/gpt-4.1-mini"`), when the provider names it. */
  readonly model?: string;
  /** ISO 8601 time. */
  readonly at: string;
}

/** The assistant's message; its tool calls follow as `tool_call_request` events. */
export interface ChatResponseEvent {
  /** `"chat_response"`. */
  readonly type: "chat_response";
  /** The turn's id. */
  readonly turn_id: string;
  /** The request it answers. */
  readonly cycle: number;
  /** The assistant's text. */
  readonly text: string;
  /** Tokens of the request, as the API counted them (when it reports them). */
  readonly input_tokens?: number;
  /** Tokens of the answer, as the API counted them (when it reports them). */
  readonly output_tokens?: number;
  /**
   * `true` when the turn was cancelled while the answer streamed in: `text`
   * is what had arrived, and no tool call of it was recorded or run.
   */
  readonly cancelled?: true;
  /** ISO 8601 time. */
  readonly at: string;
}

/** One tool call the assistant asked for. */
export interface ToolCallRequestEvent {
  /** `"tool_call_request"`. */
  readonly type: "tool_call_request";
  /** The call id. */
  readonly id: string;
  /** The tool name. */
  readonly name: string;
  /** The JSON arguments (`{}` when `invalid_arguments` is present). */
  readonly arguments: Readonly<Record<string, unknown>>;
  /**
   * The arguments exactly as the model sent them, when they were not a JSON
   * object: the call was not run, and its response says why.
   */
  readonly invalid_arguments?: string;
}

/** The recorded (and delivered) response to one tool call. */
export interface ToolCallResponseEvent {
  /** `"tool_call_response"`. */
  readonly type: "tool_call_response";
  /** The call id it answers. */
  readonly id: string;
  /**
   * The content exactly as delivered (capped, marker included): the text a
   * text-only model reads, with a placeholder line for each non-text block.
   */
  readonly content: string;
  /** Whether it reports a failure. */
  readonly is_error: boolean;
  /**
   * The result's blocks in order, when one of them is not text and the
   * result was delivered uncut (a cut or replaced result is its `content`
   * alone). Payloads are not recorded: each is named by its size and digest.
   */
  readonly blocks?: readonly RecordedBlock[];
  /**
   * The size and digest of the `structuredContent` delivered (the compact
   * JSON of the tool's own value, or of the cut value when a cap cut it).
   * Not the value: like the other non-text payloads, it can be megabytes,
   * and the text the model reads holds what it says.
   */
  readonly structured_content?: RecordedPayload;
}

/** What identifies a payload that is not recorded. */
export interface RecordedPayload {
  /** Its size in bytes (decoded, for base64 payloads). */
  readonly bytes: number;
  /** `sha256:` and the hex SHA-256 of those bytes. */
  readonly digest: string;
}

/** One recorded block of a tool result. */
export type RecordedBlock =
  | { readonly type: "text"; readonly text: string }
  | ({ readonly type: "image" | "audio"; readonly mime_type: string } & RecordedPayload)
  | (
    & { readonly type: "resource"; readonly uri: string; readonly mime_type?: string }
    & RecordedPayload
  )
  | {
    readonly type: "resource_link";
    readonly uri: string;
    readonly name: string;
    readonly mime_type?: string;
    /** The size the link declares, when it declares one. */
    readonly bytes?: number;
  };

/** A non-destructive compaction: the provider view applies it, storage keeps the payload. */
export interface CompactionEvent {
  /** `"compaction"`. */
  readonly type: "compaction";
  /** The strategy: `"strip-responses"` (a stub in place of each response) or `"cap"` (cut each one). */
  readonly strategy: string;
  /** Only responses of at least this many bytes are affected. */
  readonly over_bytes?: number;
  /** The responses it applies to (call ids). */
  readonly response_ids: readonly string[];
  /** For `"cap"`: the byte limit of each response, in the order of `response_ids`. */
  readonly cap_bytes?: readonly number[];
  /** ISO 8601 time. */
  readonly at: string;
}

/** A turn ended (`finished`) or failed (`failed`, with the reason). */
export interface TurnEndEvent {
  /** `"turn_end"`. */
  readonly type: "turn_end";
  /** The turn's id. */
  readonly turn_id: string;
  /** How it ended. */
  readonly status: "finished" | "failed";
  /** Why it failed. */
  readonly reason?: string;
  /** ISO 8601 time. */
  readonly at: string;
}

/**
 * A `spillway serve` conversation began: whose it is and which MCP protocol
 * revision its client spoke (`"2025-11-25"`, `"2026-07-28"`). Written once,
 * before the conversation's first calls.
 */
export interface SessionStartEvent {
  /** `"session_start"`. */
  readonly type: "session_start";
  /** The client (its `[serve.tokens.NAME]`, or `"default"`). */
  readonly client: string;
  /** The MCP protocol revision the client spoke. */
  readonly protocol: string;
  /** What the client said it is (`clientInfo`), when it said. */
  readonly client_info?: { readonly name: string; readonly version: string };
  /** ISO 8601 time. */
  readonly at: string;
}

/**
 * A request a tool's server sent to the caller while its call ran (an MCP
 * elicitation, sampling or roots request), and how the caller answered it:
 * by sizes and kinds, and the contents only when configured
 * (`serve.record_input_contents`). Recorded with the call's response, in
 * front of it; a call may have several, one per request.
 */
export interface ToolCallInputEvent {
  /** `"tool_call_input"`. */
  readonly type: "tool_call_input";
  /** The call that asked. */
  readonly id: string;
  /** What it asked for. */
  readonly kind: "elicitation" | "sampling" | "roots";
  /**
   * How the caller was asked: a request of its own (`"request"`, MCP
   * 2025-11-25), or an `input_required` answer it called again after
   * (`"input_required"`, MCP 2026-07-28).
   */
  readonly via: "request" | "input_required";
  /** UTF-8 bytes of the request's params (compact JSON). */
  readonly request_bytes: number;
  /** UTF-8 bytes of the caller's answer (compact JSON), when it answered. */
  readonly answer_bytes?: number;
  /**
   * How it ended: the caller's elicitation action (`"accept"`, `"decline"`,
   * `"cancel"`), `"answered"` (sampling, roots), or `"failed"` (no answer:
   * `reason` says why).
   */
  readonly outcome: "accept" | "decline" | "cancel" | "answered" | "failed";
  /** Why it failed. */
  readonly reason?: string;
  /** The request's params, when `serve.record_input_contents` is on. */
  readonly request?: unknown;
  /** The caller's answer, when `serve.record_input_contents` is on and it answered. */
  readonly answer?: unknown;
  /** ISO 8601 time it was asked. */
  readonly at: string;
}

/** Any event of the stream. */
export type StreamEvent =
  | SessionStartEvent
  | ToolCallInputEvent
  | TurnStartEvent
  | ChatRequestEvent
  | ChatResponseEvent
  | ToolCallRequestEvent
  | ToolCallResponseEvent
  | CompactionEvent
  | TurnEndEvent;
