/**
 * The blocks of a tool result, typed: text, and for every other MCP kind
 * (image, audio, resource link, embedded resource) what identifies it
 * without its payload: MIME type, size, URI or name, and the SHA-256 digest
 * of its bytes. This is what the stream records and what recorded and
 * delivered results are compared by; the payload itself travels only inside
 * the execution service (see docs/architecture.md, "Non-text content").
 *
 * @module
 */

/** A text block. */
export interface TextBlock {
  /** Always `"text"`. */
  readonly type: "text";
  /** The text. */
  readonly text: string;
}

/** An image or audio block. */
export interface MediaBlock {
  /** `"image"` or `"audio"`. */
  readonly type: "image" | "audio";
  /** Its MIME type as the tool gave it (`"image/png"`). */
  readonly mimeType: string;
  /** The size of its decoded payload, in bytes. */
  readonly bytes: number;
  /** `sha256:` and the hex SHA-256 of its decoded payload. */
  readonly digest: string;
  /**
   * Its payload, base64: present only where a model request is built
   * (a provider that sends images), never recorded.
   */
  readonly data?: string;
}

/** A link to a resource the caller may read (MCP `resource_link`): no payload. */
export interface ResourceLinkBlock {
  /** Always `"resource_link"`. */
  readonly type: "resource_link";
  /** The resource's URI. */
  readonly uri: string;
  /** The resource's name. */
  readonly name: string;
  /** Its MIME type, when the link gives one. */
  readonly mimeType?: string;
  /** Its size in bytes, when the link declares one. */
  readonly bytes?: number;
}

/** A resource embedded in the result (MCP `resource`, text or blob). */
export interface EmbeddedResourceBlock {
  /** Always `"resource"`. */
  readonly type: "resource";
  /** The resource's URI. */
  readonly uri: string;
  /** Its MIME type, when it has one. */
  readonly mimeType?: string;
  /** The size of its contents (UTF-8 text, or the decoded blob), in bytes. */
  readonly bytes: number;
  /** `sha256:` and the hex SHA-256 of those bytes. */
  readonly digest: string;
}

/** One block of a tool result. */
export type ContentBlock = TextBlock | MediaBlock | ResourceLinkBlock | EmbeddedResourceBlock;

/** A block other than text. */
export type NonTextBlock = Exclude<ContentBlock, TextBlock>;

/** A kind of non-text block. */
export type NonTextKind = NonTextBlock["type"];

/** The kinds of non-text blocks, in the order notices list them. */
export const NON_TEXT_KINDS: readonly NonTextKind[] = [
  "image",
  "audio",
  "resource",
  "resource_link",
];

/**
 * The `structuredContent` of a result, identified like a payload: the size
 * and digest of its compact JSON text (`JSON.stringify` of the object as
 * received). In memory, a response also carries the value itself, which the
 * caps cut; the stream records only its size and digest.
 */
export interface StructuredContentInfo {
  /** UTF-8 bytes of its compact JSON text. */
  readonly bytes: number;
  /** `sha256:` and the hex SHA-256 of that JSON text. */
  readonly digest: string;
  /**
   * The value, in memory only (never recorded): the tool's own on a result
   * as it arrived (the object the service received, not a copy), the cut
   * one on a cut result. Absent on a response read back from the stream:
   * such a value cannot be cut, and a cut drops it.
   */
  readonly value?: Readonly<Record<string, unknown>>;
  /**
   * Whether the response's text is this value's serialization (MCP asks
   * tools that return structured content to send it as a text block too):
   * the caps then measure the two once, and a cut keeps them one. In
   * memory only.
   */
  readonly mirrored?: true;
}

/**
 * Whether `block` is something other than text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isNonText } from "./content_block.ts";
 * assert.ok(!isNonText({ type: "text", text: "a" }));
 * assert.ok(isNonText({ type: "resource_link", uri: "file:///a", name: "a" }));
 * ```
 */
export function isNonText(block: ContentBlock): block is NonTextBlock {
  return block.type !== "text";
}
