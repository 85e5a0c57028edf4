/**
 * The events of a conversation stream (DESIGN §9): one JSON object per line
 * of `events.jsonl`. Field names are snake_case on disk.
 *
 * @module
 */

/** A user prompt starts a turn. */
export interface TurnStartEvent {
  readonly type: "turn_start";
  readonly turn_id: string;
  readonly prompt: string;
  readonly at: string;
}

/** A request sent to the model (its size in bytes, not its body). */
export interface ChatRequestEvent {
  readonly type: "chat_request";
  readonly turn_id: string;
  readonly cycle: number;
  readonly bytes: number;
  readonly at: string;
}

/** The assistant's message: text and the tool calls it asked for. */
export interface ChatResponseEvent {
  readonly type: "chat_response";
  readonly turn_id: string;
  readonly cycle: number;
  readonly text: string;
  readonly at: string;
}

/** One tool call the assistant asked for. */
export interface ToolCallRequestEvent {
  readonly type: "tool_call_request";
  readonly id: string;
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** The recorded (and delivered) response to one tool call. */
export interface ToolCallResponseEvent {
  readonly type: "tool_call_response";
  readonly id: string;
  readonly content: string;
  readonly is_error: boolean;
}

/** A non-destructive compaction: the provider view applies it. */
export interface CompactionEvent {
  readonly type: "compaction";
  readonly strategy: string;
  readonly over_bytes?: number;
  readonly response_ids: readonly string[];
  readonly at: string;
}

/** A turn ended (`finished`) or failed (`failed`, with the reason). */
export interface TurnEndEvent {
  readonly type: "turn_end";
  readonly turn_id: string;
  readonly status: "finished" | "failed";
  readonly reason?: string;
  readonly at: string;
}

/** Any event of the stream. */
export type StreamEvent =
  | TurnStartEvent
  | ChatRequestEvent
  | ChatResponseEvent
  | ToolCallRequestEvent
  | ToolCallResponseEvent
  | CompactionEvent
  | TurnEndEvent;
