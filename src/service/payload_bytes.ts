/**
 * The bytes an MCP result block carries besides text: what the stream
 * records the size and digest of, and what the blob store keeps. A result's
 * payloads are decoded and hashed once ({@linkcode blockPayload}), and both
 * the recorded digest and the kept blob come from that one pass.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type { BlobRef } from "../blobs/blob_ref.ts";
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

/** A block's payload, decoded, and the reference of those bytes. */
export interface Payload {
  /** The decoded bytes. */
  readonly bytes: Uint8Array;
  /** `sha256:` and the hex SHA-256 of `bytes`: the recorded digest, and the blob's name. */
  readonly ref: BlobRef;
}

/**
 * The payload of `block` with its digest (see {@linkcode payloadBytes});
 * `undefined` for text and resource links.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { blockPayload } from "./payload_bytes.ts";
 * const image = blockPayload({ type: "image", data: "AAAA", mimeType: "image/png" });
 * assert.equal(image?.bytes.length, 3);
 * assert.equal(image?.ref, "sha256:709e80c88487a2411e1ee4dfb9f22a861492d20c4765150c0c794abd70f8147c");
 * ```
 */
export function blockPayload(block: PayloadBlock): Payload;
export function blockPayload(block: McpBlock): Payload | undefined;
export function blockPayload(block: McpBlock): Payload | undefined {
  const bytes = payloadBytes(block);
  return bytes === undefined ? undefined : { bytes, ref: sha256Ref(bytes) };
}

/** `sha256:` and the hex SHA-256 of `data` (a string as UTF-8). */
export function sha256Ref(data: Uint8Array | string): BlobRef {
  return `sha256:${createHash("sha256").update(data).digest("hex")}`;
}
