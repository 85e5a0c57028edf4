/**
 * What a recorded tool response becomes in a model request: its text, and
 * for each non-text block either the block itself (an image, to an API that
 * takes images in tool results) or its placeholder line, the one the
 * recorded content holds. The caps measure text (placeholder lines
 * included), not payloads, so an image is bounded here: one whose base64
 * encoding passes {@linkcode MAX_IMAGE_BYTES} is sent as its placeholder,
 * with a notice.
 *
 * @module
 */

import type { MediaBlock } from "../review/content_block.ts";
import { placeholderLine } from "../review/placeholder_line.ts";
import { ByteSize } from "../size/byte_size.ts";
import type { ToolMessage } from "./provider.ts";

/** The largest base64-encoded image sent to a model (the APIs' own per-image limit). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** Image types the model APIs accept. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** One piece of a tool result as sent. */
export type ToolResultPart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly mediaType: string; readonly data: string };

/** Options of {@linkcode toolResultParts}. */
export interface ToolResultPartsOptions {
  /** The API takes image blocks in tool results. Default false. */
  readonly images?: boolean;
  /** Told, one line each ({@linkcode oversizedImageNotice}), about an image sent as its placeholder because of its size. */
  readonly notice?: (text: string) => void;
}

/**
 * The parts of `message` as sent. A response without recorded blocks (text
 * only, or cut, or compacted) is its content. Otherwise its blocks in order:
 * text as it is, an image as itself when the API takes images, its payload
 * is at hand and fits, and every other block as its placeholder line. Text
 * that follows text is joined with a newline, so without images the one
 * part is exactly the recorded content.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolResultParts } from "./tool_result_parts.ts";
 * const image = { type: "image" as const, mimeType: "image/png", bytes: 8, digest: "sha256:aa" };
 * const message = {
 *   role: "tool" as const,
 *   id: "call_1",
 *   content: "a chart\n[image: image/png, 8 B]",
 *   isError: false,
 *   blocks: [{ type: "text" as const, text: "a chart" }, { ...image, data: "iVBORw0KGgo=" }],
 * };
 * assert.deepEqual(toolResultParts(message, { images: true }), [
 *   { type: "text", text: "a chart" },
 *   { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
 * ]);
 * assert.deepEqual(toolResultParts(message), [{ type: "text", text: message.content }]);
 * ```
 */
export function toolResultParts(
  message: ToolMessage,
  options: ToolResultPartsOptions = {},
): ToolResultPart[] {
  const { blocks } = message;
  if (blocks === undefined) return [{ type: "text", text: message.content }];
  const parts: ToolResultPart[] = [];
  let text: string[] = [];
  const endText = () => {
    if (text.length > 0) parts.push({ type: "text", text: text.join("\n") });
    text = [];
  };
  for (const block of blocks) {
    if (block.type === "text") {
      text.push(block.text);
      continue;
    }
    if (options.images === true && block.type === "image" && block.data !== undefined) {
      if (block.data.length > MAX_IMAGE_BYTES) {
        options.notice?.(oversizedImageNotice(message.id, block));
      } else if (IMAGE_TYPES.has(block.mimeType)) {
        endText();
        parts.push({ type: "image", mediaType: block.mimeType, data: block.data });
        continue;
      }
    }
    text.push(placeholderLine(block));
  }
  endText();
  return parts.length === 0 ? [{ type: "text", text: "" }] : parts;
}

/**
 * The notice of an image sent as its placeholder line because its base64
 * passes {@linkcode MAX_IMAGE_BYTES} (no newline).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { oversizedImageNotice } from "./tool_result_parts.ts";
 * assert.equal(
 *   oversizedImageNotice("call_1", { type: "image", mimeType: "image/png", bytes: 4_000_000, digest: "sha256:aa" }),
 *   "call call_1: sent its image/png image (3.8 MB) as a placeholder line: its base64 is over the 5.0 MB a model takes",
 * );
 * ```
 */
export function oversizedImageNotice(callId: string, image: MediaBlock): string {
  const size = ByteSize.fromBytes(image.bytes).human();
  const limit = ByteSize.fromBytes(MAX_IMAGE_BYTES).human();
  return `call ${callId}: sent its ${image.mimeType} image (${size}) as a placeholder line: ` +
    `its base64 is over the ${limit} a model takes`;
}

/** The text of `parts`, for an API whose tool results are text only. */
export function partsText(parts: readonly ToolResultPart[]): string {
  return parts.flatMap((part) => part.type === "text" ? [part.text] : []).join("\n");
}
