/**
 * The cut of a result's `structuredContent`, measured as the UTF-8 bytes of
 * its compact JSON. It is the json cut (a prefix in document order, shape
 * for shape) without notes, which could break the value's schema (an
 * object that allows no other members, an array of one type); the text
 * block carries the marker instead. For a tool with an output schema, the
 * cut is checked against it, and when the prefix does not pass (it dropped
 * a member the schema requires), the member-keeping cut is tried: every
 * member kept, the budget shared among them, arrays and strings shortened.
 * When neither passes, the structured content is dropped, saying why.
 *
 * @module
 */

import { ByteSize } from "../size/byte_size.ts";
import { cutJsonValue } from "../size/cut_json_value.ts";
import { cutKeepingMembers } from "../size/cut_keeping_members.ts";
import type { StructuredContentInfo } from "./content_block.ts";
import type { OutputSchema } from "./output_schema.ts";
import { structuredContentInfo } from "./structured_content.ts";

/** What became of a structured value cut to a limit. */
export type StructuredCut =
  /** Kept, whole or cut: the value (in `structured.value`) and its compact JSON. */
  | { readonly kind: "kept"; readonly structured: StructuredContentInfo; readonly json: string }
  /**
   * No cut fits, or none the schema accepts: why, in words (for the
   * result's text); no reason when the value was not at hand.
   */
  | { readonly kind: "dropped"; readonly reason?: string };

/**
 * Cuts `original` to at most `budget` bytes of compact JSON. A value that
 * fits is kept whole (the same object); one that does not is cut, and
 * with `schema` kept only when the schema accepts the cut. A value not at
 * hand (a response read back from the stream) cannot be cut.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cutStructuredContent } from "./cut_structured_content.ts";
 * import { outputSchemaOf } from "./output_schema.ts";
 * import { structuredContentInfo } from "./structured_content.ts";
 * const value = { text: "x".repeat(5000), bytes: 5000 };
 * const original = structuredContentInfo(JSON.stringify(value), { value });
 * const prefix = cutStructuredContent(original, 1024);
 * assert.ok(prefix.kind === "kept" && prefix.structured.value?.bytes === undefined);
 * const schema = outputSchemaOf({ type: "object", required: ["text", "bytes"] });
 * const kept = cutStructuredContent(original, 1024, schema);
 * assert.ok(kept.kind === "kept" && kept.structured.value?.bytes === 5000 && kept.structured.bytes <= 1024);
 * ```
 */
export function cutStructuredContent(
  original: StructuredContentInfo,
  budget: number,
  schema?: OutputSchema,
): StructuredCut {
  const { value } = original;
  if (value === undefined) return { kind: "dropped" };
  if (original.bytes <= budget) {
    return { kind: "kept", structured: original, json: JSON.stringify(value) };
  }
  const limit = ByteSize.fromBytes(Math.max(0, budget)).human();
  const json = JSON.stringify(value);
  const prefix = cutJsonValue(json, Math.max(0, budget), { notes: false });
  if (prefix.kind === "fallback") {
    const reason = prefix.fallback === "not_json"
      ? "it is nested too deeply to cut"
      : `no cut of it fits in ${limit}`;
    return { kind: "dropped", reason };
  }
  const cut = JSON.parse(prefix.text) as Readonly<Record<string, unknown>>;
  const refused = schema?.check(cut);
  if (refused === undefined) return kept(prefix.text, cut);
  const members = cutKeepingMembers(value, budget);
  if (members !== undefined) {
    const keeping = JSON.parse(members) as Readonly<Record<string, unknown>>;
    if (schema?.check(keeping) === undefined) return kept(members, keeping);
  }
  return {
    kind: "dropped",
    reason: `no cut of it within ${limit} matches the output schema (${refused})`,
  };
}

function kept(json: string, value: Readonly<Record<string, unknown>>): StructuredCut {
  return { kind: "kept", structured: structuredContentInfo(json, { value }), json };
}
