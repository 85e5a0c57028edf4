/**
 * What a response lost when its text was cut or replaced: its non-text
 * blocks (an image, audio, resources, links) and its `structuredContent`. A
 * cut result is rebuilt from its text, so they do not reach the caller; the
 * notice of the cut names them, so nothing goes without a word.
 *
 * @module
 */

import { NON_TEXT_KINDS, type NonTextKind } from "./content_block.ts";
import type { ToolCallResponse } from "./tool_call_response.ts";

/** The non-text content a cut or replaced response no longer carries. */
export interface DroppedContent {
  /** How many blocks of each non-text kind were dropped (kinds with none are absent). */
  readonly blocks: Readonly<Partial<Record<NonTextKind, number>>>;
  /** Whether its `structuredContent` was dropped. */
  readonly structuredContent: boolean;
}

/**
 * What `response` loses when its content is cut or replaced, or `undefined`
 * when it has nothing but text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { droppedContentOf } from "./dropped_content.ts";
 * const image = { type: "image" as const, mimeType: "image/png", bytes: 3, digest: "sha256:aa" };
 * assert.deepEqual(
 *   droppedContentOf({ id: "c", content: "", isError: false, blocks: [{ type: "text", text: "a" }, image, image] }),
 *   { blocks: { image: 2 }, structuredContent: false },
 * );
 * assert.equal(droppedContentOf({ id: "c", content: "a", isError: false }), undefined);
 * ```
 */
export function droppedContentOf(response: ToolCallResponse): DroppedContent | undefined {
  const blocks: Partial<Record<NonTextKind, number>> = {};
  let any = false;
  for (const block of response.blocks ?? []) {
    if (block.type === "text") continue;
    blocks[block.type] = (blocks[block.type] ?? 0) + 1;
    any = true;
  }
  const structuredContent = response.structuredContent !== undefined;
  return any || structuredContent ? { blocks, structuredContent } : undefined;
}

const NOUNS: Readonly<Record<NonTextKind, readonly [string, string]>> = {
  image: ["image", "images"],
  audio: ["audio clip", "audio clips"],
  resource: ["embedded resource", "embedded resources"],
  resource_link: ["resource link", "resource links"],
};

/**
 * `dropped` in words, kinds in a fixed order, the last two joined by `and`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeDropped } from "./dropped_content.ts";
 * assert.equal(
 *   describeDropped({ blocks: { image: 2, resource_link: 1 }, structuredContent: true }),
 *   "2 images, 1 resource link and its structured content",
 * );
 * ```
 */
export function describeDropped(dropped: DroppedContent): string {
  const parts: string[] = [];
  for (const kind of NON_TEXT_KINDS) {
    const count = dropped.blocks[kind];
    if (count === undefined || count === 0) continue;
    const [one, many] = NOUNS[kind];
    parts.push(`${count} ${count === 1 ? one : many}`);
  }
  if (dropped.structuredContent) parts.push("its structured content");
  if (parts.length <= 1) return parts[0] ?? "nothing";
  return `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}
