/**
 * What keeping a cut `structuredContent` costs the threshold's cut of one
 * result, in the same run: a 4 MiB file read as server-filesystem returns
 * it (`{content}` beside the same text) cut to 256 KB with its output
 * schema checked, against the cut of the same text alone (the cut before
 * structured results were kept: the value dropped). Also: a mirror of
 * 1.7 MiB (no text block, so its JSON is the text), and the member-keeping
 * cut, which a schema requiring a member after the cut one forces.
 */

import { capReview } from "../../src/review/cap_review.ts";
import { outputSchemaOf } from "../../src/review/output_schema.ts";
import { acceptedReview } from "../../src/review/review.ts";
import { toToolCallResponse } from "../../src/service/to_tool_call_response.ts";
import { SizeThreshold } from "../../src/size/size_threshold.ts";

const THRESHOLD = SizeThreshold.parse("256KB");
const lines: string[] = [];
for (let i = 0, bytes = 0; bytes < 4 * 1024 * 1024; i++) {
  const line = `line ${i}: café 中文 🙂 done\n`;
  lines.push(line);
  bytes += line.length;
}
const file = lines.join("");
const readSchema = outputSchemaOf({
  type: "object",
  properties: { content: { type: "string" } },
  required: ["content"],
  additionalProperties: false,
});
const read = toToolCallResponse("c1", {
  content: [{ type: "text", text: file }],
  structuredContent: { content: file },
}, { parked: true });
const textOnly = toToolCallResponse("c1", { content: [{ type: "text", text: file }] });

const rows = Array.from({ length: 40_000 }, (_, i) => ({ id: i, title: `row ${i} of the table` }));
const mirror = toToolCallResponse("c2", { content: [], structuredContent: { rows } }, {
  parked: true,
});
const rowsSchema = outputSchemaOf({
  type: "object",
  properties: { rows: { type: "array" } },
  required: ["rows"],
});

const tail = { content: file, bytes: file.length };
const members = toToolCallResponse("c3", {
  content: [{ type: "text", text: "read" }],
  structuredContent: tail,
}, { parked: true });
const membersSchema = outputSchemaOf({
  type: "object",
  properties: { content: { type: "string" }, bytes: { type: "integer" } },
  required: ["content", "bytes"],
});
// Compiled once, as a session compiles each tool's schema once.
for (const schema of [readSchema, rowsSchema, membersSchema]) schema.check({});

Deno.bench({
  name: "text alone: 4 MiB cut to 256 KB (baseline)",
  group: "read",
  baseline: true,
  fn: () => {
    capReview(acceptedReview("read_text_file", textOnly), THRESHOLD);
  },
});
Deno.bench({
  name: "text and {content}: both cut, the schema checked",
  group: "read",
  fn: () => {
    capReview(acceptedReview("read_text_file", read), THRESHOLD, { outputSchema: readSchema });
  },
});
Deno.bench({
  name: "mirror of 40,000 rows (1.7 MiB of JSON): cut as one, the schema checked",
  group: "other",
  baseline: true,
  fn: () => {
    capReview(acceptedReview("rows", mirror), THRESHOLD, { outputSchema: rowsSchema });
  },
});
Deno.bench({
  name: "member-keeping cut: {content, bytes} with both required",
  group: "other",
  fn: () => {
    capReview(acceptedReview("read", members), THRESHOLD, { outputSchema: membersSchema });
  },
});
