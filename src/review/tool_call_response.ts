/**
 * The response to one tool call: what is recorded in the stream and
 * delivered to the caller. Sizes are measured on `content` (UTF-8 bytes).
 *
 * @module
 */

import type { SpilledOutput } from "./full_output_reference.ts";

/**
 * Non-text MCP content that rides along with an untouched response: image,
 * audio and resource blocks, and `structuredContent`. It is not measured by
 * the caps, and it is dropped as soon as the text is cut or replaced.
 */
export interface NonTextContent {
  /** MCP content blocks other than `text`, in their original order. */
  readonly blocks: readonly Readonly<Record<string, unknown>>[];
  /** The MCP result's `structuredContent`, when it had one. */
  readonly structuredContent?: Readonly<Record<string, unknown>>;
}

/** The response to one tool call. */
export interface ToolCallResponse {
  /** The id of the call this answers. */
  readonly id: string;
  /** The text content: what the assistant reads. */
  readonly content: string;
  /** Whether the tool (or the runtime on its behalf) reports a failure. */
  readonly isError: boolean;
  /** Non-text MCP content, kept only while `content` is untouched. */
  readonly nonText?: NonTextContent;
  /**
   * The tool's whole output stored in the blob store (`spill = true`), kept
   * only while `content` is the tool's own: a cut of it refers the assistant
   * there. Never recorded in the stream.
   */
  readonly spilled?: SpilledOutput;
}
