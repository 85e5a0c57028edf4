/**
 * The line that stands for a non-text block wherever only text goes: in the
 * recorded content (so the caps measure it and the terminal shows it), and
 * in what a text-only model receives. It names the block's kind, then what
 * identifies it: a resource link's name, a URI, the MIME type, the size.
 *
 * @module
 */

import { ByteSize } from "../size/byte_size.ts";
import type { NonTextBlock } from "./content_block.ts";

/** The longest a name or URI is shown in a placeholder line, in UTF-16 units. */
export const PLACEHOLDER_FIELD_CHARS = 200;

/**
 * The placeholder line of `block` (no newline):
 * `[{kind}: {name}, {uri}, {MIME type}, {size}]`, each fact present only
 * when the block has it (a name only for resource links, a URI only for
 * resources). Names and URIs are cut to {@linkcode PLACEHOLDER_FIELD_CHARS}
 * (ending `…`), and control characters in them (a newline) become spaces,
 * so the placeholder stays one short line whatever the tool sent.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { placeholderLine } from "./placeholder_line.ts";
 * assert.equal(
 *   placeholderLine({ type: "image", mimeType: "image/png", bytes: 3993, digest: "sha256:00" }),
 *   "[image: image/png, 3.8 KB]",
 * );
 * assert.equal(
 *   placeholderLine({ type: "resource_link", uri: "file:///r.pdf", name: "r.pdf", mimeType: "application/pdf" }),
 *   "[resource_link: r.pdf, file:///r.pdf, application/pdf]",
 * );
 * ```
 */
export function placeholderLine(block: NonTextBlock): string {
  const facts: string[] = [];
  switch (block.type) {
    case "image":
    case "audio":
      facts.push(shown(block.mimeType), size(block.bytes));
      break;
    case "resource":
      facts.push(shown(block.uri));
      if (block.mimeType !== undefined) facts.push(shown(block.mimeType));
      facts.push(size(block.bytes));
      break;
    case "resource_link":
      facts.push(shown(block.name), shown(block.uri));
      if (block.mimeType !== undefined) facts.push(shown(block.mimeType));
      if (block.bytes !== undefined) facts.push(size(block.bytes));
      break;
  }
  return `[${block.type}: ${facts.join(", ")}]`;
}

function size(bytes: number): string {
  return ByteSize.fromBytes(bytes).human();
}

const CONTROL = /\p{Cc}/gu;

/** `text` on one line and at most {@linkcode PLACEHOLDER_FIELD_CHARS} long. */
function shown(text: string): string {
  let kept = text;
  if (kept.length > PLACEHOLDER_FIELD_CHARS) {
    let end = PLACEHOLDER_FIELD_CHARS - 1;
    // Never keep half of a surrogate pair.
    const last = kept.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end -= 1;
    kept = `${kept.slice(0, end)}…`;
  }
  return kept.replace(CONTROL, " ");
}
