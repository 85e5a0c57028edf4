/**
 * A response as the stream records it, and back: the `tool_call_response`
 * event holds the content text, the error flag and, for a result with
 * non-text blocks delivered uncut, every block typed (snake_case on disk,
 * payloads named by size and digest, never stored). An event written before
 * blocks were recorded is a plain `content` string, and reads back as one.
 *
 * @module
 */

import type { ContentBlock, StructuredContentInfo } from "../review/content_block.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import type { RecordedBlock, RecordedPayload, ToolCallResponseEvent } from "./events.ts";

/**
 * The event recording `response`. Only what identifies its blocks is kept:
 * payloads a block may carry in memory (`data`) are not recorded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolCallResponseEvent } from "./tool_call_response_event.ts";
 * assert.deepEqual(
 *   toolCallResponseEvent({
 *     id: "call_1",
 *     content: "[image: image/png, 3 B]",
 *     isError: false,
 *     blocks: [{ type: "image", mimeType: "image/png", bytes: 3, digest: "sha256:aa", data: "AAAA" }],
 *   }),
 *   {
 *     type: "tool_call_response",
 *     id: "call_1",
 *     content: "[image: image/png, 3 B]",
 *     is_error: false,
 *     blocks: [{ type: "image", mime_type: "image/png", bytes: 3, digest: "sha256:aa" }],
 *   },
 * );
 * ```
 */
export function toolCallResponseEvent(response: ToolCallResponse): ToolCallResponseEvent {
  const event: ToolCallResponseEvent = {
    type: "tool_call_response",
    id: response.id,
    content: response.content,
    is_error: response.isError,
  };
  const { blocks, structuredContent } = response;
  if (blocks === undefined && structuredContent === undefined) return event;
  return {
    ...event,
    ...(blocks === undefined ? {} : { blocks: blocks.map(recordedBlock) }),
    ...(structuredContent === undefined ? {} : {
      structured_content: { bytes: structuredContent.bytes, digest: structuredContent.digest },
    }),
  };
}

/**
 * The response an event records. Blocks or structured content that do not
 * have the recorded shape (a damaged or hand-edited line) are left out: the
 * content text alone is what was delivered to text-only models.
 */
export function responseOfEvent(event: ToolCallResponseEvent): ToolCallResponse {
  const response: ToolCallResponse = {
    id: event.id,
    content: event.content,
    isError: event.is_error,
  };
  const blocks = Array.isArray(event.blocks) ? event.blocks.map(blockOfRecord) : undefined;
  const structured = payloadOf(event.structured_content);
  return {
    ...response,
    ...(blocks === undefined || blocks.includes(undefined)
      ? {}
      : { blocks: blocks as ContentBlock[] }),
    ...(structured === undefined ? {} : { structuredContent: structured }),
  };
}

function recordedBlock(block: ContentBlock): RecordedBlock {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
    case "audio":
      return {
        type: block.type,
        mime_type: block.mimeType,
        bytes: block.bytes,
        digest: block.digest,
      };
    case "resource":
      return {
        type: "resource",
        uri: block.uri,
        ...(block.mimeType === undefined ? {} : { mime_type: block.mimeType }),
        bytes: block.bytes,
        digest: block.digest,
      };
    case "resource_link":
      return {
        type: "resource_link",
        uri: block.uri,
        name: block.name,
        ...(block.mimeType === undefined ? {} : { mime_type: block.mimeType }),
        ...(block.bytes === undefined ? {} : { bytes: block.bytes }),
      };
  }
}

function blockOfRecord(value: unknown): ContentBlock | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Readonly<Record<string, unknown>>;
  const mimeType = optionalString(record["mime_type"]);
  if (mimeType === null) return undefined;
  const mime = mimeType === undefined ? {} : { mimeType };
  switch (record["type"]) {
    case "text":
      return typeof record["text"] === "string"
        ? { type: "text", text: record["text"] }
        : undefined;
    case "image":
    case "audio": {
      const payload = payloadOf(record);
      if (payload === undefined || mimeType === undefined) return undefined;
      return { type: record["type"], mimeType, ...payload };
    }
    case "resource": {
      const payload = payloadOf(record);
      if (payload === undefined || typeof record["uri"] !== "string") return undefined;
      return { type: "resource", uri: record["uri"], ...mime, ...payload };
    }
    case "resource_link": {
      const { uri, name, bytes } = record;
      if (typeof uri !== "string" || typeof name !== "string") return undefined;
      if (bytes !== undefined && !isByteCount(bytes)) return undefined;
      return {
        type: "resource_link",
        uri,
        name,
        ...mime,
        ...(bytes === undefined ? {} : { bytes }),
      };
    }
    default:
      return undefined;
  }
}

function payloadOf(value: unknown): StructuredContentInfo | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { bytes, digest } = value as Partial<RecordedPayload>;
  if (!isByteCount(bytes) || typeof digest !== "string") return undefined;
  return { bytes, digest };
}

function isByteCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** A string, `undefined` when absent, `null` when present but not a string. */
function optionalString(value: unknown): string | undefined | null {
  return value === undefined ? undefined : typeof value === "string" ? value : null;
}
