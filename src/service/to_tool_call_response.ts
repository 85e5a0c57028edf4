/**
 * Turns an MCP tool result into the response spillway records: every block
 * typed (text as it is; images, audio, resource links and embedded
 * resources by kind, MIME type, size, URI and SHA-256 digest), and the
 * content text (text blocks and the placeholder lines of the others, in
 * order) that is measured, capped and read by text-only models. The
 * executors use the same function on what their callers received, so a
 * recorded and a delivered result are compared block by block the same way.
 *
 * @module
 */

import { blocksText } from "../review/blocks_text.ts";
import type { ContentBlock, StructuredContentInfo } from "../review/content_block.ts";
import { structuredContentInfo } from "../review/structured_content.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import { blockPayload, type McpBlock, type Payload } from "./payload_bytes.ts";
import type { ToolResult } from "./tool_source.ts";

/** Options of {@linkcode toToolCallResponse}. */
export interface ToToolCallResponseOptions {
  /**
   * The payload of each block of `result.content`, in order (`undefined`
   * for a block without one), when the caller has decoded them already
   * (the service keeps them too): each is then not decoded nor hashed
   * again. Default: each payload is decoded and hashed here.
   */
  readonly payloads?: readonly (Payload | undefined)[];
  /**
   * Whether this is the response a call parks with, which the caps may cut:
   * its `structuredContent` then also carries the value itself (the
   * result's own object, not a copy) and whether the text mirrors it.
   * Default `false`: a result a caller received, compared with what was
   * recorded, needs only the size and digest.
   */
  readonly parked?: boolean;
}

/**
 * The {@linkcode ToolCallResponse} of call `id` for an MCP result. A result
 * of text blocks only keeps no `blocks` (its text is all there is); any other
 * block makes the response carry all of them, typed, in order. A result with
 * no blocks but `structuredContent` has its JSON text as content. `result` must
 * be valid MCP: the service checks every result before it parks, and SDK
 * clients check what they receive. A parked response's structured content
 * is `mirrored` when the text is its serialization: no block but it (its
 * JSON is the text), or one text block whose JSON value is the same value
 * (compact or indented, as `JSON.stringify` writes it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toToolCallResponse } from "./to_tool_call_response.ts";
 * const response = toToolCallResponse("call_1", {
 *   content: [{ type: "text", text: "a" }, { type: "image", data: "AAAA", mimeType: "image/png" }],
 * });
 * assert.equal(response.content, "a\n[image: image/png, 3 B]");
 * assert.deepEqual(response.blocks?.[1], {
 *   type: "image",
 *   mimeType: "image/png",
 *   bytes: 3,
 *   digest: "sha256:709e80c88487a2411e1ee4dfb9f22a861492d20c4765150c0c794abd70f8147c",
 * });
 * ```
 */
export function toToolCallResponse(
  id: string,
  result: ToolResult,
  options: ToToolCallResponseOptions = {},
): ToolCallResponse {
  const isError = result.isError === true;
  const { structuredContent } = result;
  const json = structuredContent === undefined ? undefined : JSON.stringify(structuredContent);
  const parked = options.parked === true;
  const content = result.content as readonly McpBlock[];
  if (content.length === 0 && json !== undefined && structuredContent !== undefined) {
    // Structured content alone: its JSON is the text (as MCP asks tools to send it), never "".
    const structured = identify(json, parked ? structuredContent : undefined, true);
    return { id, content: json, isError, structuredContent: structured };
  }
  const only = content.length === 1 ? content[0] : undefined;
  const mirrored = parked && json !== undefined && only?.type === "text" &&
    isSerialization(only.text, json);
  const structured = json === undefined
    ? undefined
    : identify(json, parked ? structuredContent : undefined, mirrored);
  let texts: string[] | undefined = [];
  for (const block of content) {
    if (block.type !== "text") {
      texts = undefined;
      break;
    }
    texts.push(block.text);
  }
  if (texts !== undefined) {
    const text = texts.join("\n");
    return structured === undefined
      ? { id, content: text, isError }
      : { id, content: text, isError, structuredContent: structured };
  }
  const { payloads } = options;
  const blocks = content.map((block, i) => typedBlock(block, payloads?.[i]));
  return {
    id,
    content: blocksText(blocks),
    isError,
    blocks,
    ...(structured === undefined ? {} : { structuredContent: structured }),
  };
}

/** `block` typed, its payload (`payload`, or decoded here) replaced by its size and digest. */
function typedBlock(block: McpBlock, payload: Payload | undefined): ContentBlock {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
    case "audio": {
      const { bytes, ref } = payload ?? blockPayload(block);
      return { type: block.type, mimeType: block.mimeType, bytes: bytes.length, digest: ref };
    }
    case "resource": {
      const { resource } = block;
      const { bytes, ref } = payload ?? blockPayload(block);
      return {
        type: "resource",
        uri: resource.uri,
        ...(resource.mimeType === undefined ? {} : { mimeType: resource.mimeType }),
        bytes: bytes.length,
        digest: ref,
      };
    }
    case "resource_link": {
      const size = block.size;
      return {
        type: "resource_link",
        uri: block.uri,
        name: block.name,
        ...(block.mimeType === undefined ? {} : { mimeType: block.mimeType }),
        // A declared size is only shown when it is a byte count.
        ...(typeof size === "number" && Number.isSafeInteger(size) && size >= 0
          ? { bytes: size }
          : {}),
      };
    }
  }
}

/** The size and digest of a `structuredContent`'s JSON text, and on a parked response the value. */
function identify(
  json: string,
  value: Readonly<Record<string, unknown>> | undefined,
  mirrored: boolean,
): StructuredContentInfo {
  return structuredContentInfo(json, { value, mirrored });
}

/**
 * Whether `text` is the JSON text of the value whose compact JSON is
 * `json`: that text itself, or (indented) one that parses to the same. Only
 * a text that starts like an object and is not shorter is parsed.
 */
function isSerialization(text: string, json: string): boolean {
  if (text === json) return true;
  if (text.length < json.length || !/^\s*\{/.test(text.slice(0, 64))) return false;
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}
