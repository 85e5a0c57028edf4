import assert from "node:assert/strict";
import { SizeThreshold } from "../size/size_threshold.ts";
import { capReview } from "./cap_review.ts";
import { outputSchemaOf } from "./output_schema.ts";
import { formatNotice } from "./notice.ts";
import { acceptedReview, replacedReview } from "./review.ts";
import { spendBatchBudget } from "./spend_batch_budget.ts";

const image = { type: "image" as const, mimeType: "image/png", bytes: 3, digest: "sha256:aa" };

Deno.test("capReview() leaves a fitting review, or any review under unlimited, as is", () => {
  const review = acceptedReview("t", { id: "c1", content: "x".repeat(2000), isError: false });
  assert.equal(capReview(review, SizeThreshold.parse("2KB")).review, review);
  assert.equal(capReview(review, SizeThreshold.UNLIMITED).review, review);
  assert.equal(capReview(review, SizeThreshold.UNLIMITED).notice, undefined);
});

Deno.test("capReview() cuts to the threshold and reports the notice", () => {
  const content = "line\n".repeat(130_000); // 650,000 bytes
  const review = acceptedReview("fs_list_files", { id: "c1", content, isError: false });
  const { review: capped, notice } = capReview(review, SizeThreshold.DEFAULT);
  assert.equal(capped.status, "replaced");
  assert.equal(capped.uncut, content);
  assert.ok(capped.response.content.endsWith("\n... [truncated, 634.7 KB → 256.0 KB]"));
  assert.ok(new TextEncoder().encode(capped.response.content).length <= 262144);
  assert.ok(notice);
  assert.equal(
    formatNotice(notice),
    "fs_list_files: sent 256.0 KB of 634.7 KB to the assistant (size_threshold)",
  );
});

Deno.test("capReview() drops the blocks and structured content of a cut result, and its notice says so", () => {
  const text = "line\n".repeat(1000); // 5,000 bytes
  const content = `${text}\n[image: image/png, 3 B]`;
  const review = acceptedReview("plot", {
    id: "c1",
    content,
    isError: false,
    blocks: [{ type: "text", text }, image],
    structuredContent: { bytes: 2, digest: "sha256:bb" },
  });
  const { review: capped, notice } = capReview(review, SizeThreshold.parse("1KB"));
  assert.deepEqual(Object.keys(capped.response).sort(), ["content", "id", "isError"]);
  assert.ok(notice);
  assert.equal(
    formatNotice(notice),
    "plot: sent 1.0 KB of 4.9 KB to the assistant (size_threshold); " +
      "dropped 1 image and its structured content",
  );
  // The batch ceiling recuts from the uncut text and still names what went.
  const { notices } = spendBatchBudget([capped], 512);
  assert.equal(
    formatNotice(notices[0]!),
    "plot: sent 512 B of 4.9 KB to the assistant (batch ceiling); " +
      "dropped 1 image and its structured content",
  );
});

Deno.test("capReview() of a tool promising structured results: cuts without its structured value and replacements are error results", () => {
  // The value is not at hand (a response read back from the stream): no cut of it can be kept.
  const schema = outputSchemaOf({ type: "object" });
  const offered = acceptedReview("query", {
    id: "c1",
    content: "r".repeat(5000),
    isError: false,
    structuredContent: { bytes: 12, digest: "sha256:cc" },
  });
  // Cut by the threshold: no structured content left, so an error result.
  const { review: cut, notice } = capReview(offered, SizeThreshold.parse("1KB"), {
    outputSchema: schema,
  });
  assert.equal(cut.status, "replaced");
  assert.equal(cut.response.isError, true);
  assert.equal(cut.response.structuredContent, undefined);
  assert.ok(cut.response.content.endsWith("\n... [truncated, 4.8 KB → 1.0 KB]"));
  assert.equal(notice?.cause, "size_threshold");
  // Whole: the tool's own response, structured content and all, not an error.
  const { review: whole } = capReview(offered, SizeThreshold.parse("8KB"), {
    outputSchema: schema,
  });
  assert.deepEqual(whole, { ...offered, outputSchema: schema });
  // The batch ceiling cuts it later: an error result too.
  const [ceilingCut] = spendBatchBudget([whole], 1024).reviews;
  assert.equal(ceilingCut?.response.isError, true);
  assert.equal(ceilingCut?.outputSchema, schema);
  // Replaced before the cap (a person edited it): fits, and is still an error result.
  const edited = replacedReview("query", { id: "c1", content: "edited", isError: false });
  const { review: kept } = capReview(edited, SizeThreshold.parse("8KB"), { outputSchema: schema });
  assert.deepEqual(kept.response, { id: "c1", content: "edited", isError: true });
  // Without the promise, nothing changes.
  assert.equal(capReview(offered, SizeThreshold.parse("1KB")).review.response.isError, false);
  assert.equal(capReview(edited, SizeThreshold.parse("8KB")).review, edited);
});

Deno.test("capReview() keeps isError and the call id", () => {
  const review = acceptedReview("t", { id: "c9", content: "e".repeat(5000), isError: true });
  const { review: capped } = capReview(review, SizeThreshold.parse("1KB"));
  assert.equal(capped.response.id, "c9");
  assert.equal(capped.response.isError, true);
});

Deno.test("capReview() of a capped review recuts from the uncut text with one marker", () => {
  const review = acceptedReview("t", { id: "c1", content: "z".repeat(10_000), isError: false });
  const first = capReview(review, SizeThreshold.parse("4KB")).review;
  assert.equal(capReview(first, SizeThreshold.parse("4KB")).review, first);
  const second = capReview(first, SizeThreshold.parse("2KB"));
  assert.equal(second.review.response.content.split("[truncated").length, 2);
  assert.ok(second.review.response.content.endsWith("[truncated, 9.7 KB → 2.0 KB]"));
});

Deno.test("capReview() of a spilled response puts its reference after the marker, and the ceiling keeps it", () => {
  const spilled = { ref: `sha256:${"e".repeat(64)}`, bytes: 10_000 };
  const review = acceptedReview("build", {
    id: "c1",
    content: "w".repeat(10_000),
    isError: false,
    spilled,
  });
  const line = `... [full output: read_tool_output ref="${spilled.ref}" (10000 bytes)]`;
  const { review: capped } = capReview(review, SizeThreshold.parse("4KB"), {
    truncation: { strategy: "tail", headPercent: 50 },
  });
  const content = capped.response.content;
  assert.ok(
    content.startsWith(`... [truncated, 9.7 KB → 4.0 KB]\n${line}\nwww`),
    content.slice(0, 140),
  );
  assert.equal(new TextEncoder().encode(content).length, 4096);
  assert.equal(capped.response.spilled, undefined, "the recorded response carries no blob");
  assert.deepEqual(capped.spilled, spilled);
  const [recut] = spendBatchBudget([capped], 2048).reviews;
  assert.ok(recut!.response.content.startsWith(`... [truncated, 9.7 KB → 2.0 KB]\n${line}\nwww`));
  const fits = capReview(review, SizeThreshold.parse("16KB")).review;
  assert.equal(
    fits.response.content,
    review.response.content,
    "an uncut response refers to nothing",
  );
});
