/**
 * The text of a result's blocks: what the caps measure, the stream records
 * as `content`, the terminal shows and a text-only model reads.
 *
 * @module
 */

import type { ContentBlock } from "./content_block.ts";
import { placeholderLine } from "./placeholder_line.ts";

/**
 * The blocks in order, text as it is and every other block as its
 * placeholder line, joined with newlines.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { blocksText } from "./blocks_text.ts";
 * assert.equal(
 *   blocksText([
 *     { type: "text", text: "Here it is:" },
 *     { type: "audio", mimeType: "audio/wav", bytes: 2048, digest: "sha256:00" },
 *   ]),
 *   "Here it is:\n[audio: audio/wav, 2.0 KB]",
 * );
 * ```
 */
export function blocksText(blocks: readonly ContentBlock[]): string {
  return blocks.map((block) => block.type === "text" ? block.text : placeholderLine(block))
    .join("\n");
}
