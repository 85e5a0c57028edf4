/**
 * Recorded equals delivered, checked block by block: the runtime's executor
 * and the gateway compare what their caller received with what the stream
 * holds through this one function.
 *
 * @module
 */

import type { ContentBlock, StructuredContentInfo } from "../review/content_block.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";

/**
 * What `recorded` and `received` differ in, or `undefined` when they agree:
 * the content text (which holds every block in order, non-text ones as their
 * placeholder lines), the error flag, each block (kind, text, MIME type,
 * size, URI, name and digest; payloads are compared by their digests), and
 * the `structuredContent` (by size and digest). The first difference found
 * is described, recorded side first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { deliveryDifference } from "./delivery_difference.ts";
 * const image = { type: "image" as const, mimeType: "image/png", bytes: 3, digest: "sha256:aa" };
 * const recorded = { id: "c", content: "[image: image/png, 3 B]", isError: false, blocks: [image] };
 * assert.equal(deliveryDifference(recorded, recorded), undefined);
 * assert.deepEqual(
 *   deliveryDifference(recorded, { ...recorded, blocks: [{ ...image, digest: "sha256:bb" }] }),
 *   {
 *     expected: "block 1: image image/png 3 bytes sha256:aa",
 *     received: "block 1: image image/png 3 bytes sha256:bb",
 *   },
 * );
 * ```
 */
export function deliveryDifference(
  recorded: ToolCallResponse,
  received: ToolCallResponse,
): { expected: string; received: string } | undefined {
  if (recorded.content !== received.content) {
    return { expected: recorded.content, received: received.content };
  }
  if (recorded.isError !== received.isError) {
    return { expected: `isError: ${recorded.isError}`, received: `isError: ${received.isError}` };
  }
  // A text-only result carries no blocks: its content is all of it.
  if ((recorded.blocks === undefined) !== (received.blocks === undefined)) {
    return { expected: kindsOf(recorded), received: kindsOf(received) };
  }
  const expectedBlocks = recorded.blocks ?? [];
  const receivedBlocks = received.blocks ?? [];
  const count = Math.max(expectedBlocks.length, receivedBlocks.length);
  for (let i = 0; i < count; i++) {
    const a = expectedBlocks[i];
    const b = receivedBlocks[i];
    // Text is compared as it is; described (shortened) only when it differs.
    if (a?.type === "text" && b?.type === "text" && a.text === b.text) continue;
    const expected = describeBlock(a);
    const got = describeBlock(b);
    if (expected !== got || a?.type === "text") {
      return { expected: `block ${i + 1}: ${expected}`, received: `block ${i + 1}: ${got}` };
    }
  }
  const expectedStructured = describeStructured(recorded.structuredContent);
  const receivedStructured = describeStructured(received.structuredContent);
  if (expectedStructured !== receivedStructured) {
    return { expected: expectedStructured, received: receivedStructured };
  }
  return undefined;
}

/** The kinds of `response`'s blocks: `blocks: text, image`, or `text only`. */
function kindsOf(response: ToolCallResponse): string {
  const { blocks } = response;
  return blocks === undefined ? "text only" : `blocks: ${blocks.map((b) => b.type).join(", ")}`;
}

/** One line naming everything that identifies `block` (its payload by digest). */
function describeBlock(block: ContentBlock | undefined): string {
  if (block === undefined) return "none";
  switch (block.type) {
    case "text":
      return `text ${
        JSON.stringify(block.text.length > 80 ? `${block.text.slice(0, 80)}…` : block.text)
      }`;
    case "image":
    case "audio":
      return `${block.type} ${block.mimeType} ${block.bytes} bytes ${block.digest}`;
    case "resource":
      return `resource ${block.uri} ${block.mimeType ?? "-"} ${block.bytes} bytes ${block.digest}`;
    case "resource_link":
      return `resource_link ${block.uri} ${JSON.stringify(block.name)} ${block.mimeType ?? "-"} ${
        block.bytes ?? "-"
      }`;
  }
}

function describeStructured(info: StructuredContentInfo | undefined): string {
  return info === undefined
    ? "no structuredContent"
    : `structuredContent ${info.bytes} bytes ${info.digest}`;
}
