/**
 * The bytes an MCP result block carries besides text: what the stream
 * records the size and digest of, and what the blob store keeps.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import type { CallToolResult } from "./sdk.ts";

/** One block of an MCP tool result. */
export type McpBlock = CallToolResult["content"][number];

/** A block that carries a payload: an image, an audio clip, an embedded resource. */
export type PayloadBlock = Extract<McpBlock, { type: "image" | "audio" | "resource" }>;

/**
 * The payload of an image, audio or embedded-resource block (base64
 * decoded; an embedded text resource as UTF-8); `undefined` for text and
 * resource links, which carry none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { payloadBytes } from "./payload_bytes.ts";
 * const image = payloadBytes({ type: "image", data: "AQI=", mimeType: "image/png" });
 * assert.deepEqual([...image], [1, 2]);
 * assert.equal(payloadBytes({ type: "text", text: "hi" }), undefined);
 * ```
 */
export function payloadBytes(block: PayloadBlock): Uint8Array;
export function payloadBytes(block: McpBlock): Uint8Array | undefined;
export function payloadBytes(block: McpBlock): Uint8Array | undefined {
  switch (block.type) {
    case "image":
    case "audio":
      return Buffer.from(block.data, "base64");
    case "resource":
      return "blob" in block.resource
        ? Buffer.from(block.resource.blob, "base64")
        : Buffer.from(block.resource.text, "utf8");
    default:
      return undefined;
  }
}
