/**
 * Both caps on results with structured content: the value is cut to the
 * same limit as the text (compact JSON, no notes), kept when the tool's
 * output schema accepts the cut, a mirror cut as one, and an error result
 * saying why when no cut fits. The strings people and clients read are
 * pinned here.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { SizeThreshold } from "../size/size_threshold.ts";
import { capReview } from "./cap_review.ts";
import type { StructuredContentInfo } from "./content_block.ts";
import { formatNotice } from "./notice.ts";
import { outputSchemaOf } from "./output_schema.ts";
import { acceptedReview } from "./review.ts";
import { spendBatchBudget } from "./spend_batch_budget.ts";
import { structuredContentInfo } from "./structured_content.ts";
import type { ToolCallResponse } from "./tool_call_response.ts";

const bytesOf = (text: string) => Buffer.byteLength(text, "utf8");

/** The response a tool returning `value` (and `text`, or its JSON as a mirror) parks with. */
function response(
  id: string,
  value: Record<string, unknown>,
  text?: string,
): ToolCallResponse {
  const json = JSON.stringify(value);
  const structuredContent: StructuredContentInfo = structuredContentInfo(json, {
    value,
    mirrored: text === undefined,
  });
  return { id, content: text ?? json, isError: false, structuredContent };
}

const lines = (count: number) =>
  Array.from({ length: count }, (_, i) => `line ${i + 1} of the file`).join("\n");

Deno.test("a file read ({content}) cut by its threshold: text and structured value both cut, a success; notice golden", () => {
  const text = lines(200_000);
  const schema = outputSchemaOf({
    type: "object",
    properties: { content: { type: "string" } },
    required: ["content"],
    additionalProperties: false,
  });
  const offered = acceptedReview("read_text_file", response("c1", { content: text }, text));
  const { review, notice } = capReview(offered, SizeThreshold.parse("256KB"), {
    outputSchema: schema,
  });
  const cut = review.response;
  assert.equal(cut.isError, false);
  assert.ok(cut.content.endsWith("\n... [truncated, 4.4 MB → 256.0 KB]"));
  assert.ok(bytesOf(cut.content) <= 262_144);
  const value = cut.structuredContent?.value as { content: string };
  assert.ok(text.startsWith(value.content) && value.content.length > 200_000);
  assert.equal(schema.check(value), undefined);
  assert.ok(cut.structuredContent!.bytes <= 262_144);
  assert.equal(
    formatNotice(notice!),
    "read_text_file: sent 256.0 KB of 4.4 MB to the assistant (size_threshold); " +
      "structured content cut to 256.0 KB of 4.6 MB",
  );
});

Deno.test("a mirror is cut as one: its text is the cut value's JSON and the marker; golden", () => {
  const issues = Array.from({ length: 300 }, (_, n) => ({ number: n, title: `Issue ${n}` }));
  const schema = outputSchemaOf({
    type: "object",
    properties: {
      issues: {
        type: "array",
        items: {
          type: "object",
          properties: { number: { type: "integer" }, title: { type: "string" } },
          required: ["number", "title"],
          additionalProperties: false,
        },
      },
    },
    required: ["issues"],
  });
  const offered = acceptedReview("issues", response("c1", { issues }));
  const { review, notice } = capReview(offered, SizeThreshold.parse("1KB"), {
    outputSchema: schema,
  });
  const cut = review.response;
  const json = JSON.stringify(cut.structuredContent?.value);
  assert.equal(cut.content, `${json}\n... [truncated, 10.0 KB → 1.0 KB]`);
  assert.ok(json.startsWith('{"issues":[{"number":0,"title":"Issue 0"},'));
  assert.ok(json.endsWith("}]}"), "no note inside: the items are the tool's own");
  assert.ok(bytesOf(cut.content) <= 1024 && bytesOf(cut.content) > 900);
  assert.equal(cut.structuredContent?.mirrored, true);
  assert.equal(cut.isError, false);
  assert.equal(
    formatNotice(notice!),
    "issues: sent 1.0 KB of 10.0 KB to the assistant (size_threshold)",
  );
  // The batch ceiling cuts it again from the original: one marker, still one value.
  const [again] = spendBatchBudget([review], 600).reviews;
  const recut = JSON.stringify(again!.response.structuredContent?.value);
  assert.equal(again!.response.content, `${recut}\n... [truncated, 10.0 KB → 600 B]`);
});

Deno.test("a schema requiring a member after the one cut: every member kept, the longest shortened", () => {
  const value = { text: "x".repeat(300_000), bytes: 300_000 };
  const schema = outputSchemaOf({
    type: "object",
    properties: { text: { type: "string" }, bytes: { type: "number" } },
    required: ["text", "bytes"],
  });
  const { review } = capReview(
    acceptedReview("structured", response("c1", value, value.text)),
    SizeThreshold.parse("4KB"),
    { outputSchema: schema },
  );
  const kept = review.response.structuredContent?.value as typeof value;
  assert.equal(kept.bytes, 300_000);
  assert.equal(kept.text, "x".repeat(4096 - '{"text":"","bytes":300000}'.length));
  assert.equal(review.response.isError, false);
});

Deno.test("no cut matches the schema: an error result whose text says why; golden", () => {
  const value = { signature: "s".repeat(6000), note: "n" };
  const schema = outputSchemaOf({
    type: "object",
    properties: { signature: { type: "string", minLength: 3000 }, note: { type: "string" } },
    required: ["signature"],
  });
  const { review, notice } = capReview(
    acceptedReview("sign", response("c1", value, "signed")),
    SizeThreshold.parse("1KB"),
    { outputSchema: schema },
  );
  assert.equal(review.response.isError, true);
  assert.equal(review.response.structuredContent, undefined);
  assert.equal(
    review.response.content,
    "signed\n... [structured content dropped: no cut of it within 1.0 KB matches the output " +
      "schema (data/signature must NOT have fewer than 3000 characters)]",
  );
  assert.equal(
    formatNotice(notice!),
    "sign: sent 6 B of 6 B to the assistant (size_threshold); dropped its structured content",
  );
  // A text that is cut too: the marker, then the line.
  const long = capReview(
    acceptedReview("sign", response("c2", value, "y".repeat(5000))),
    SizeThreshold.parse("1KB"),
    { outputSchema: schema },
  ).review.response.content;
  assert.ok(long.startsWith("yyy"));
  assert.ok(
    long.endsWith(
      "\n... [truncated, 4.8 KB → 1.0 KB]\n... [structured content dropped: no cut of it within " +
        "1.0 KB matches the output schema (data/signature must NOT have fewer than 3000 characters)]",
    ),
    long.slice(-200),
  );
  assert.ok(bytesOf(long) <= 1024);
});

Deno.test("only the structured value over the limit: the text stays whole, the value is cut; notice golden", () => {
  const rows = Array.from({ length: 500 }, (_, i) => ({ id: i, name: `row ${i}` }));
  const { review, notice } = capReview(
    acceptedReview("rows", response("c1", { rows }, "500 rows")),
    SizeThreshold.parse("1KB"),
  );
  assert.equal(review.response.content, "500 rows");
  assert.equal(review.status, "replaced");
  const kept = review.response.structuredContent?.value as { rows: unknown[] };
  assert.deepEqual(kept.rows.slice(0, 2), rows.slice(0, 2));
  assert.ok(review.response.structuredContent!.bytes <= 1024);
  assert.equal(
    formatNotice(notice!),
    "rows: sent 8 B of 8 B to the assistant (size_threshold); " +
      "structured content cut to 1.0 KB of 13.4 KB",
  );
});

Deno.test("the batch ceiling counts a mirror once and a separate structured value on top of its text", () => {
  const mirror = acceptedReview("a", response("c1", { log: "m".repeat(1_500_000) }));
  const text = "t".repeat(600_000);
  const wrapped = acceptedReview("b", response("c2", { content: text }, text));
  // Parts: 1.5 MB (the mirror), 600 KB + 600 KB (text and value): 2.7 MB over a 2 MiB budget.
  const { reviews, notices } = spendBatchBudget([mirror, wrapped]);
  assert.deepEqual(notices.map((n) => n.callId), ["c1"]);
  const spent = reviews.reduce(
    (sum, { response }) =>
      sum + bytesOf(response.content) +
      (response.structuredContent?.mirrored === true ? 0 : response.structuredContent?.bytes ?? 0),
    0,
  );
  assert.ok(spent <= 2 * 1024 * 1024, `${spent}`);
  assert.equal(reviews[1], wrapped, "the two parts of 600 KB fit under the level");
  const cut = reviews[0]!.response;
  assert.equal(
    cut.content,
    `${JSON.stringify(cut.structuredContent?.value)}\n${cut.content.split("\n").at(-1)}`,
  );
});

Deno.test("a recut decides again: kept at the threshold, dropped under a tighter ceiling, an error then", () => {
  const value = { a: "a".repeat(20_000), b: "b".repeat(20_000), c: 1 };
  const schema = outputSchemaOf({
    type: "object",
    properties: { a: { type: "string" }, b: { type: "string" }, c: { type: "integer" } },
    required: ["a", "b", "c"],
  });
  const first = capReview(
    acceptedReview("t", response("c1", value, "summary")),
    SizeThreshold.parse("8KB"),
    { outputSchema: schema },
  ).review;
  assert.equal(first.response.isError, false);
  assert.equal((first.response.structuredContent?.value as typeof value).c, 1);
  // A budget smaller than the value's smallest form ({"a":"","b":"","c":1}, 21 bytes): dropped.
  const { reviews, notices } = spendBatchBudget([first], 20);
  assert.equal(reviews[0]!.response.isError, true);
  assert.equal(reviews[0]!.response.structuredContent, undefined);
  assert.equal(notices[0]?.dropped?.structuredContent, true);
  // Under a roomier ceiling it is kept again, cut from the original.
  const roomy = spendBatchBudget([first], 4096).reviews[0]!.response;
  assert.equal(roomy.isError, false);
  assert.equal((roomy.structuredContent?.value as typeof value).a.length > 1000, true);
});
