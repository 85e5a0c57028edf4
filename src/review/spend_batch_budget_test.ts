import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { SizeThreshold } from "../size/size_threshold.ts";
import { capReview } from "./cap_review.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "./max_tool_response_batch_bytes.ts";
import { formatNotice } from "./notice.ts";
import { acceptedReview, type Review } from "./review.ts";
import { spendBatchBudget, waterLevel } from "./spend_batch_budget.ts";

const bytesOf = (s: string) => Buffer.byteLength(s, "utf8");
const total = (reviews: readonly Review[]) =>
  reviews.reduce((sum, r) => sum + bytesOf(r.response.content), 0);
const review = (tool: string, id: string, content: string) =>
  acceptedReview(tool, { id, content, isError: false });

Deno.test("MAX_TOOL_RESPONSE_BATCH_BYTES is 2 MiB", () => {
  assert.equal(MAX_TOOL_RESPONSE_BATCH_BYTES, 2_097_152);
});

Deno.test("waterLevel() finds the highest level that fits", () => {
  assert.equal(waterLevel([10, 20, 30], 100), Infinity);
  assert.equal(waterLevel([10, 20, 30], 60), Infinity);
  assert.equal(waterLevel([10, 20, 30], 50), 20);
  assert.equal(waterLevel([100, 100], 50), 25);
  assert.equal(waterLevel([], 0), Infinity);
});

Deno.test("spendBatchBudget() leaves a batch that fits untouched", () => {
  const batch = [review("a", "1", "x".repeat(1000)), review("b", "2", "")];
  const { reviews, notices } = spendBatchBudget(batch);
  assert.deepEqual(reviews, batch);
  assert.equal(reviews[0], batch[0]);
  assert.equal(notices.length, 0);
});

Deno.test("spendBatchBudget() cuts one oversized response and spares its siblings", () => {
  const small1 = review("fs_read_file", "1", "s".repeat(10_000));
  const big = review("dump", "2", "b".repeat(3 * 1024 * 1024));
  const small2 = review("fs_list_files", "3", "t".repeat(20_000));
  const { reviews, notices } = spendBatchBudget([small1, big, small2]);
  assert.equal(reviews[0], small1);
  assert.equal(reviews[2], small2);
  assert.ok(total(reviews) <= MAX_TOOL_RESPONSE_BATCH_BYTES);
  assert.equal(notices.length, 1);
  assert.equal(
    formatNotice(notices[0]!),
    "dump: sent 1.9 MB of 3.0 MB to the assistant (batch ceiling)",
  );
  assert.ok(reviews[1]!.response.content.endsWith("\n... [truncated, 3.0 MB → 1.9 MB]"));
});

Deno.test("spendBatchBudget() shares the budget among equally large responses", () => {
  const batch = Array.from({ length: 5 }, (_, i) => review("t", `c${i}`, "q".repeat(600 * 1024)));
  const { reviews, notices } = spendBatchBudget(batch);
  assert.ok(total(reviews) <= MAX_TOOL_RESPONSE_BATCH_BYTES);
  assert.equal(notices.length, 5);
  assert.deepEqual(
    notices.map(formatNotice),
    Array(5).fill("t: sent 409.5 KB of 600.0 KB to the assistant (batch ceiling)"),
  );
});

Deno.test("spendBatchBudget() recuts a threshold-cut response from its original: one marker", () => {
  const original = "o".repeat(3 * 1024 * 1024);
  const capped = capReview(review("t", "1", original), SizeThreshold.parse("2MB")).review;
  const other = review("u", "2", "p".repeat(1024 * 1024));
  const { reviews } = spendBatchBudget([capped, other]);
  const content = reviews[0]!.response.content;
  assert.equal(content.split("[truncated").length, 2);
  assert.ok(content.endsWith("\n... [truncated, 3.0 MB → 1.0 MB]"), content.slice(-60));
  assert.ok(total(reviews) <= MAX_TOOL_RESPONSE_BATCH_BYTES);
});

Deno.test("spendBatchBudget() holds for thousands of calls", () => {
  const batch = Array.from({ length: 5000 }, (_, i) => review("t", `c${i}`, "w".repeat(1000)));
  const { reviews, notices } = spendBatchBudget(batch);
  assert.ok(total(reviews) <= MAX_TOOL_RESPONSE_BATCH_BYTES);
  assert.equal(notices.length, 5000);
});

Deno.test("spendBatchBudget() never exceeds the budget (property)", () => {
  const content = fc.oneof(
    fc.string({ unit: "binary", maxLength: 400 }),
    fc.integer({ min: 0, max: 5000 }).map((n) => "m".repeat(n)),
    fc.constant(""),
  );
  fc.assert(
    fc.property(
      fc.array(content, { maxLength: 60 }),
      fc.integer({ min: 0, max: 20_000 }),
      fc.boolean(),
      (contents, budget, precap) => {
        let batch = contents.map((c, i) => review("t", `c${i}`, c));
        if (precap) batch = batch.map((r) => capReview(r, SizeThreshold.parse("1KB")).review);
        const { reviews, notices } = spendBatchBudget(batch, budget);
        assert.ok(total(reviews) <= budget, `${total(reviews)} > ${budget}`);
        assert.equal(reviews.length, batch.length);
        let cuts = 0;
        reviews.forEach((r, i) => {
          const before = batch[i]!;
          if (r !== before) {
            cuts++;
            assert.ok(r.response.content.split("[truncated").length <= 2, "two markers");
            assert.equal(r.uncut, before.uncut ?? before.response.content);
          }
        });
        assert.equal(cuts, notices.length);
      },
    ),
    { numRuns: 2000 },
  );
});
