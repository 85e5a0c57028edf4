/**
 * What a recorded tool response becomes in a model request: its text, and
 * for each non-text block either the block itself (an image, to an API that
 * takes images in tool results) or a placeholder line the assistant can
 * read. The caps measure text only, so an image is bounded here: one whose
 * base64 encoding passes {@linkcode MAX_IMAGE_BYTES} is sent as its
 * placeholder, with a notice.
 *
 * @module
 */

import type { ToolMessage } from "./provider.ts";
import { ByteSize } from "../size/byte_size.ts";

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
  /** Told, one line each, about an image sent as its placeholder because of its size. */
  readonly notice?: (text: string) => void;
}

/**
 * The parts of `message` as sent: its text first (also when empty, so a
 * result is never blank), then one part per non-text block. Text parts that
 * follow each other are joined with a newline.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolResultParts } from "./tool_result_parts.ts";
 * const message = {
 *   role: "tool" as const,
 *   id: "call_1",
 *   content: "a chart",
 *   isError: false,
 *   nonText: { blocks: [{ type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" }] },
 * };
 * assert.deepEqual(toolResultParts(message, { images: true }), [
 *   { type: "text", text: "a chart" },
 *   { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
 * ]);
 * assert.deepEqual(toolResultParts(message), [
 *   { type: "text", text: "a chart\n[image: image/png, 12 B]" },
 * ]);
 * ```
 */
export function toolResultParts(
  message: ToolMessage,
  options: ToolResultPartsOptions = {},
): ToolResultPart[] {
  const parts: ToolResultPart[] = [{ type: "text", text: message.content }];
  const addText = (line: string) => {
    const last = parts.at(-1);
    if (last?.type === "text") {
      parts[parts.length - 1] = {
        type: "text",
        text: last.text === "" ? line : `${last.text}\n${line}`,
      };
    } else {
      parts.push({ type: "text", text: line });
    }
  };
  for (const block of message.nonText?.blocks ?? []) {
    const image = imageOf(block);
    if (image === undefined) {
      addText(placeholder(block));
      continue;
    }
    const fits = image.data.length <= MAX_IMAGE_BYTES;
    if (options.images === true && fits && IMAGE_TYPES.has(image.mediaType)) {
      parts.push({ type: "image", ...image });
      continue;
    }
    addText(placeholder(block));
    if (options.images === true && !fits) {
      options.notice?.(
        `call ${message.id}: sent a placeholder for a ${
          ByteSize.fromBytes(image.data.length).human()
        } image (over the ${ByteSize.fromBytes(MAX_IMAGE_BYTES).human()} a model takes)`,
      );
    }
  }
  return parts;
}

/** The text of `parts`, for an API whose tool results are text only. */
export function partsText(parts: readonly ToolResultPart[]): string {
  return parts.flatMap((part) => part.type === "text" ? [part.text] : []).join("\n");
}

function imageOf(
  block: Readonly<Record<string, unknown>>,
): { mediaType: string; data: string } | undefined {
  if (block["type"] !== "image") return undefined;
  const { mimeType, data } = block;
  return typeof mimeType === "string" && typeof data === "string"
    ? { mediaType: mimeType, data }
    : undefined;
}

/** One line naming a block that is not sent as itself. */
function placeholder(block: Readonly<Record<string, unknown>>): string {
  const type = typeof block["type"] === "string" ? block["type"] : "content";
  const mime = typeof block["mimeType"] === "string" ? block["mimeType"] : undefined;
  const data = typeof block["data"] === "string" ? block["data"] : undefined;
  const resource = block["resource"] as Readonly<Record<string, unknown>> | undefined;
  const uri = typeof block["uri"] === "string"
    ? block["uri"]
    : typeof resource?.["uri"] === "string"
    ? resource["uri"]
    : undefined;
  const facts = [
    mime,
    uri,
    data === undefined ? undefined : ByteSize.fromBytes(data.length).human(),
  ].filter((fact) => fact !== undefined);
  return `[${type}${facts.length > 0 ? `: ${facts.join(", ")}` : ""}]`;
}
