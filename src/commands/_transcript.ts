/**
 * A conversation as a person reads it (`conversation show`): turns with
 * their prompts, the requests sent to the model and their sizes, the
 * assistant's words, each tool call with its arguments and the size of the
 * response recorded for it (cut ones marked, with the size and digest of
 * the structured content delivered with it), how turns ended, and each
 * compaction with what it changed, and what a call asked its client for
 * while it ran (elicitation, sampling, roots: kinds and sizes). Sizes only: payloads can be 100 MB, and
 * the log itself has them.
 *
 * @module
 */

import type { StreamEvent, ToolCallResponseEvent } from "../stream/events.ts";
import { conversationView, type ViewedResponse } from "../stream/provider_view.ts";

/** One thing that happened, in stream order. */
export type TranscriptItem =
  | { readonly kind: "turn"; readonly turnId: string; readonly at: string; readonly prompt: string }
  | { readonly kind: "request"; readonly cycle: number; readonly bytes: number }
  | { readonly kind: "assistant"; readonly text: string }
  | TranscriptSession
  | TranscriptCall
  | {
    readonly kind: "turn_end";
    readonly status: "finished" | "failed";
    readonly reason?: string;
  }
  | TranscriptCompaction;

/** A `spillway serve` conversation's start: its client and protocol revision. */
export interface TranscriptSession {
  readonly kind: "session";
  readonly at: string;
  readonly client: string;
  readonly protocol: string;
  /** The client's own name and version, when it said. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
}

/** A tool call and the response recorded for it. */
export interface TranscriptCall {
  readonly kind: "call";
  readonly id: string;
  /** `""` for a response whose request was not recorded. */
  readonly tool: string;
  readonly arguments?: Readonly<Record<string, unknown>>;
  /** The arguments as the model sent them, when they were not a JSON object (the call did not run). */
  readonly invalidArguments?: string;
  /** Absent when no response was recorded (the turn stopped before). */
  readonly response?: TranscriptResponse;
  /** What the call asked its caller for while it ran (elicitation, sampling, roots), in order. */
  readonly inputs?: readonly TranscriptInput[];
}

/** One request a call sent its caller, by kind and sizes. */
export interface TranscriptInput {
  readonly kind: string;
  readonly via: string;
  readonly requestBytes: number;
  readonly answerBytes?: number;
  readonly outcome: string;
  readonly reason?: string;
}

/** The recorded response of a call. */
export interface TranscriptResponse {
  readonly bytes: number;
  readonly isError: boolean;
  /** Present when it was cut when recorded: the sizes its marker names. */
  readonly cut?: { readonly original: string; readonly cap: string };
  /** Bytes the model is sent now (after compactions). */
  readonly viewBytes: number;
  /** The structured content delivered with it (cut or whole), by size and digest. */
  readonly structured?: { readonly bytes: number; readonly digest: string };
  /** The compaction (1-based number) that last changed it in the view. */
  readonly compactedBy?: { readonly strategy: string; readonly number: number };
}

/** A compaction and what it changed. */
export interface TranscriptCompaction {
  readonly kind: "compaction";
  /** 1-based, in stream order. */
  readonly number: number;
  readonly at: string;
  readonly strategy: string;
  readonly overBytes?: number;
  readonly changed: readonly {
    readonly id: string;
    readonly tool: string;
    readonly fromBytes: number;
    readonly toBytes: number;
  }[];
}

/** The marker a cut leaves: `... [truncated, 3.1 MB → 256.0 KB]`, on a line of its own. */
const MARKER = /^\.\.\. \[truncated, ([0-9.]+ (?:B|KB|MB|GB)) → ([0-9.]+ (?:B|KB|MB|GB))\]$/;
const MARKER_START = "... [truncated, ";
/** Longer than a marker line: how far from each end a marker is looked for first. */
const ENDS_CHARS = 300;

/** The transcript of `events`. */
export function transcriptOf(events: readonly StreamEvent[]): TranscriptItem[] {
  const { responses } = conversationView(events);
  const byEvent = new Map(responses.map((r) => [r.eventIndex, r]));
  const compactionNumbers = new Map<number, number>();
  const items: TranscriptItem[] = [];
  /** Index in `items` of the calls still waiting for their response, by id. */
  const waiting = new Map<string, number>();
  /** Index in `items` of the call holding each response, by the response's event index. */
  const itemOfResponse = new Map<number, number>();
  events.forEach((event, index) => {
    switch (event.type) {
      case "session_start":
        items.push({
          kind: "session",
          at: event.at,
          client: event.client,
          protocol: event.protocol,
          ...(event.client_info === undefined ? {} : { clientInfo: event.client_info }),
        });
        break;
      case "turn_start":
        items.push({ kind: "turn", turnId: event.turn_id, at: event.at, prompt: event.prompt });
        break;
      case "chat_request":
        items.push({ kind: "request", cycle: event.cycle, bytes: event.bytes });
        break;
      case "chat_response":
        if (event.text !== "") items.push({ kind: "assistant", text: event.text });
        break;
      case "tool_call_request":
        waiting.set(event.id, items.length);
        items.push({
          kind: "call",
          id: event.id,
          tool: event.name,
          arguments: event.arguments,
          ...(event.invalid_arguments === undefined
            ? {}
            : { invalidArguments: event.invalid_arguments }),
        });
        break;
      case "tool_call_input": {
        const at = waiting.get(event.id);
        const call = at === undefined ? undefined : items[at];
        if (at === undefined || call?.kind !== "call") break;
        const input: TranscriptInput = {
          kind: event.kind,
          via: event.via,
          requestBytes: event.request_bytes,
          ...(event.answer_bytes === undefined ? {} : { answerBytes: event.answer_bytes }),
          outcome: event.outcome,
          ...(event.reason === undefined ? {} : { reason: event.reason }),
        };
        items[at] = { ...call, inputs: [...call.inputs ?? [], input] };
        break;
      }
      case "tool_call_response": {
        const viewed = byEvent.get(index);
        if (viewed === undefined) break;
        const response = responseOf(event, viewed);
        const at = waiting.get(event.id);
        waiting.delete(event.id);
        const call = at === undefined ? undefined : items[at];
        if (at !== undefined && call?.kind === "call") {
          items[at] = { ...call, response };
          itemOfResponse.set(index, at);
        } else {
          itemOfResponse.set(index, items.length);
          items.push({ kind: "call", id: event.id, tool: viewed.tool, response });
        }
        break;
      }
      case "turn_end":
        items.push({
          kind: "turn_end",
          status: event.status,
          ...(event.reason === undefined ? {} : { reason: event.reason }),
        });
        break;
      case "compaction": {
        const number = compactionNumbers.size + 1;
        compactionNumbers.set(index, number);
        items.push({
          kind: "compaction",
          number,
          at: event.at,
          strategy: event.strategy,
          ...(event.over_bytes === undefined ? {} : { overBytes: event.over_bytes }),
          changed: changedBy(events, index),
        });
        break;
      }
    }
  });
  // Compactions come after the responses they change: fill in their numbers.
  for (const viewed of responses) {
    const at = itemOfResponse.get(viewed.eventIndex);
    const item = at === undefined ? undefined : items[at];
    const number = compactionNumbers.get(viewed.compactedBy?.eventIndex ?? -1);
    if (item?.kind !== "call" || item.response === undefined || number === undefined) continue;
    const strategy = viewed.compactedBy?.strategy ?? "";
    items[at as number] = {
      ...item,
      response: { ...item.response, compactedBy: { strategy, number } },
    };
  }
  return items;
}

function responseOf(event: ToolCallResponseEvent, viewed: ViewedResponse): TranscriptResponse {
  const marker = recordedMarker(event.content);
  const structured = event.structured_content;
  return {
    bytes: viewed.recordedBytes,
    isError: event.is_error,
    ...(marker === null ? {} : { cut: { original: marker[1] ?? "", cap: marker[2] ?? "" } }),
    viewBytes: viewed.viewBytes,
    ...(structured === undefined
      ? {}
      : { structured: { bytes: structured.bytes, digest: structured.digest } }),
  };
}

/** The responses the compaction at `index` changed, with their view sizes before and after. */
function changedBy(events: readonly StreamEvent[], index: number): TranscriptCompaction["changed"] {
  const before = conversationView(events.slice(0, index)).responses;
  const after = conversationView(events.slice(0, index + 1)).responses;
  return after.flatMap((response, i) => {
    const earlier = before[i];
    if (response.compactedBy?.eventIndex !== index || earlier === undefined) return [];
    return [{
      id: response.id,
      tool: response.tool,
      fromBytes: earlier.viewBytes,
      toBytes: response.viewBytes,
    }];
  });
}

/**
 * The sizes named by the marker of a response cut when it was recorded:
 * the marker line ends the text (head kept), starts it (tail kept), or
 * stands between the two kept ends (head_tail); a reference line may follow
 * it. Only the ends are searched first; the middle with one native scan.
 */
function recordedMarker(text: string): RegExpExecArray | null {
  const lineAt = (at: number): RegExpExecArray | null => {
    const end = text.indexOf("\n", at);
    return MARKER.exec(text.slice(at, end < 0 ? text.length : end));
  };
  if (text.startsWith(MARKER_START)) {
    const found = lineAt(0);
    if (found !== null) return found;
  }
  const tail = text.lastIndexOf(`\n${MARKER_START}`);
  if (tail >= 0 && tail >= text.length - ENDS_CHARS) {
    const found = lineAt(tail + 1);
    if (found !== null) return found;
  }
  for (let at = text.indexOf(`\n${MARKER_START}`); at >= 0;) {
    const found = lineAt(at + 1);
    if (found !== null) return found;
    at = text.indexOf(`\n${MARKER_START}`, at + 1);
  }
  return null;
}
