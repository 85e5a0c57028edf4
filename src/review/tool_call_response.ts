/**
 * The response to one tool call: what is recorded in the stream and
 * delivered to the caller. Sizes are measured on `content` (UTF-8 bytes),
 * which holds a placeholder line for each non-text block, so the caps count
 * those lines and a result without text is never empty.
 *
 * @module
 */

import { utf8Length } from "../size/cap_text.ts";
import type { JsonScan } from "../size/json_scan.ts";
import type { TextWindow } from "../size/text_window.ts";
import type { ContentBlock, StructuredContentInfo } from "./content_block.ts";
import type { SpilledOutput } from "./full_output_reference.ts";

/**
 * The rest of a response too large to hold in memory (a local tool's
 * stdout, a large file): `content` then holds only the text's head, this
 * its tail and exact size, and the whole text is in a file. A cap never
 * keeps more than a window's ends, so every cut of it is exact.
 */
export interface ResponseWindow {
  /**
   * The text's last characters, as many as a cap could keep (they overlap
   * `content` when the text is less than twice that).
   */
  readonly tail: string;
  /** The UTF-8 size of the whole text. */
  readonly bytes: number;
  /** The number of lines of the whole text (a final newline ends a line). */
  readonly lines: number;
  /** The file holding the whole text, exactly (UTF-8). */
  readonly path: string;
  /**
   * Whether the file exists only for this call (removed once the call is
   * released, unless the terminal kept it as its full-result file), rather
   * than being a stored output (`spill = true`).
   */
  readonly temporary: boolean;
  /**
   * The whole text scanned as JSON while it streamed past, marked where
   * `content` ends: what a json cut (`truncation = "json"`/`"auto"`) needs
   * beyond the head. The review layer never reads the file.
   */
  readonly json?: JsonScan;
}

/** The response to one tool call. */
export interface ToolCallResponse {
  /** The id of the call this answers. */
  readonly id: string;
  /**
   * The text content: what the assistant reads. For a result with non-text
   * blocks, its blocks in order, text as it is and every other block as its
   * placeholder line, joined with newlines.
   */
  readonly content: string;
  /** Whether the tool (or the runtime on its behalf) reports a failure. */
  readonly isError: boolean;
  /**
   * The result's blocks, typed, when one of them is not text; kept only
   * while `content` is the tool's own (a cut or an edit drops them).
   */
  readonly blocks?: readonly ContentBlock[];
  /** The result's `structuredContent`, identified; kept only while `content` is the tool's own. */
  readonly structuredContent?: StructuredContentInfo;
  /**
   * The tool's whole output stored in the blob store (`spill = true`), kept
   * only while `content` is the tool's own: a cut of it refers the assistant
   * there. Never recorded in the stream.
   */
  readonly spilled?: SpilledOutput;
  /**
   * Present when the text was too large to hold: `content` is its head, and
   * the window has the rest of what a cut can keep. Never recorded.
   */
  readonly window?: ResponseWindow;
}

/**
 * The UTF-8 size of a response's whole text (of its window when it has one).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { responseBytes } from "./tool_call_response.ts";
 * assert.equal(responseBytes({ id: "c", content: "héllo", isError: false }), 6);
 * ```
 */
export function responseBytes(response: ToolCallResponse): number {
  return response.window?.bytes ?? utf8Length(response.content);
}

/**
 * The UTF-8 bytes of a response's structured content (its compact JSON)
 * where the caps measure it apart from the text: `undefined` when it has
 * none, or when its text mirrors it (the two are then measured once, as the
 * text). A caller that receives structured content receives it on top of
 * the text, so both caps bound it too, each part to the same limit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { structuredBytes } from "./tool_call_response.ts";
 * const structuredContent = { bytes: 12, digest: "sha256:00" };
 * assert.equal(structuredBytes({ id: "c", content: "t", isError: false, structuredContent }), 12);
 * assert.equal(
 *   structuredBytes({
 *     id: "c",
 *     content: "t",
 *     isError: false,
 *     structuredContent: { ...structuredContent, mirrored: true },
 *   }),
 *   undefined,
 * );
 * ```
 */
export function structuredBytes(response: ToolCallResponse): number | undefined {
  const structured = response.structuredContent;
  return structured === undefined || structured.mirrored === true ? undefined : structured.bytes;
}

/** Whether some part of `response` (its text, its structured content) is over `limit` bytes. */
export function isOver(response: ToolCallResponse, limit: number): boolean {
  return responseBytes(response) > limit || (structuredBytes(response) ?? 0) > limit;
}

/** A response's whole text, or the window standing for it: what a cut starts from. */
export function responseText(response: ToolCallResponse): string | TextWindow {
  const { window } = response;
  if (window === undefined) return response.content;
  return { head: response.content, tail: window.tail, bytes: window.bytes, json: window.json };
}
