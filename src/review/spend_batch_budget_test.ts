import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { truncationMarker } from "../size/cap_text.ts";
import { cutText } from "../size/cut_text.ts";
import { SizeThreshold } from "../size/size_threshold.ts";
import type { Truncation, TruncationStrategy } from "../size/truncation.ts";
import { textOfAbout } from "../testing/arbitrary_text.ts";
import { withTestSeed } from "../testing/seed.ts";
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

Deno.test("spendBatchBudget() cuts each response with its own tool's strategy", () => {
  const tests = "test t ... ok\n".repeat(200_000) + "test result: ok. 200000 passed";
  const report = "# Report\n" + "row\n".repeat(400_000) + "## Summary: 3 regressions";
  const tail = capReview(review("cargo_test", "1", tests), SizeThreshold.UNLIMITED, {
    truncation: { strategy: "tail", headPercent: 50 },
  }).review;
  const both = capReview(review("report", "2", report), SizeThreshold.UNLIMITED, {
    truncation: { strategy: "head_tail", headPercent: 50 },
  }).review;
  const { reviews, notices } = spendBatchBudget([tail, both]);
  assert.equal(notices.length, 2);
  const [testsCut, reportCut] = reviews.map((r) => r.response.content) as [string, string];
  assert.ok(testsCut.startsWith("... [truncated, 2.6 MB → 1.0 MB]\n"), testsCut.slice(0, 50));
  assert.ok(testsCut.endsWith("test result: ok. 200000 passed"));
  assert.ok(reportCut.startsWith("# Report\nrow\n"));
  assert.ok(reportCut.includes("\n... [truncated, 1.5 MB → 1.0 MB]\n"));
  assert.ok(reportCut.endsWith("## Summary: 3 regressions"));
  assert.ok(total(reviews) <= MAX_TOOL_RESPONSE_BATCH_BYTES);
});

const KB = 1024;
const MB = 1024 * KB;
const strategy = fc.constantFrom<TruncationStrategy>("head", "tail", "head_tail");
const truncation: fc.Arbitrary<Truncation> = fc.record({
  strategy,
  headPercent: fc.integer({ min: 1, max: 99 }),
});
// Mostly small responses, some medium, a few of several MB.
const size = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: 0, max: 4 * KB }) },
  { weight: 6, arbitrary: fc.integer({ min: 4 * KB, max: 256 * KB }) },
  { weight: 1, arbitrary: fc.integer({ min: 256 * KB, max: 6 * MB }) },
);
const entry = fc.record({
  text: size.chain(textOfAbout).map((generated) => generated.text),
  truncation,
  // A threshold cut before the ceiling (as the phase end does), or none.
  precut: fc.option(fc.integer({ min: 1 * KB, max: 1 * MB }), { freq: 4 }),
});
const batchCase = fc.record({
  entries: fc.oneof(
    fc.array(entry, { maxLength: 12 }),
    fc.array(entry, { minLength: 100, maxLength: 400 }),
  ),
  budget: fc.oneof(
    { weight: 3, arbitrary: fc.constant(MAX_TOOL_RESPONSE_BATCH_BYTES) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 4 * MB }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 16 * KB }) },
    // Shares smaller than the marker: about one case in five (one in twenty without).
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 2 * KB }) },
  ),
});

Deno.test("spendBatchBudget() properties: fits, spares what fits its share, one share for every cut, largest first, fills the budget", async () => {
  const runs = 100;
  const reached = { cut: 0, hundreds: 0, recut: 0, mixed: 0, spared: 0, tiny: 0 };
  await withTestSeed((seed) => {
    fc.assert(
      fc.property(batchCase, ({ entries, budget }) => {
        const batch = entries.map(({ text, truncation, precut }, i) => {
          const r = review(`tool${i % 7}`, `c${i}`, text);
          if (precut === null) return capReview(r, SizeThreshold.UNLIMITED, { truncation }).review;
          return capReview(r, SizeThreshold.parse(precut), { truncation }).review;
        });
        const { reviews, notices } = spendBatchBudget(batch, budget);
        const sizes = batch.map((r) => bytesOf(r.response.content));
        assert.equal(reviews.length, batch.length);
        assert.ok(total(reviews) <= budget, `${total(reviews)} > ${budget}`);
        if (batch.length >= 100) reached.hundreds++;
        if (notices.length === 0) {
          assert.deepEqual(reviews, batch);
          reviews.forEach((r, i) => assert.equal(r, batch[i]));
          return;
        }
        reached.cut++;
        const share = notices[0]!.capBytes;
        assert.ok(notices.every((n) => n.capBytes === share), "cut responses got different shares");
        if (share < 64) reached.tiny++;
        const strategies = new Set<string>();
        let cuts = 0;
        reviews.forEach((r, i) => {
          const before = batch[i]!;
          if (sizes[i]! <= share) {
            assert.equal(r, before, `response ${i} fits the share of ${share} but was changed`);
            if (sizes[i]! > budget / batch.length) reached.spared++;
            return;
          }
          // Larger than the share: cut to it, from the uncut text, with its own strategy.
          const notice = notices[cuts++]!;
          const uncut = before.uncut ?? before.response.content;
          assert.ok(typeof uncut === "string", "no windows in this batch");
          assert.equal(notice.callId, before.response.id);
          assert.equal(notice.originalBytes, bytesOf(uncut));
          assert.equal(r.uncut, uncut);
          const content = r.response.content;
          assert.ok(bytesOf(content) <= share);
          assert.equal(content, cutText(uncut, share, before.truncation).text);
          if (before.uncut !== undefined) reached.recut++;
          const kind = before.truncation?.strategy ?? "head";
          strategies.add(kind);
          const marker = truncationMarker(notice.originalBytes, share);
          if (share >= bytesOf(marker) + 2) {
            assert.equal(content.split(marker).length, 2, "not exactly one marker");
            if (kind === "head") assert.ok(content.endsWith("\n" + marker));
            if (kind === "tail") assert.ok(content.startsWith(marker + "\n"));
            if (kind === "head_tail") assert.ok(content.includes("\n" + marker + "\n"));
          }
        });
        assert.equal(cuts, notices.length);
        if (strategies.size > 1) reached.mixed++;
        // Filled: only the shares' rounding (under one byte per cut) and the cuts'
        // character boundaries (under 4 bytes per cut) stay unspent.
        const slack = 4 * notices.length;
        assert.ok(total(reviews) >= budget - slack, `${total(reviews)} < ${budget} - ${slack}`);
      }),
      // Shrinking batches of several MB takes minutes; the seed replays a failure.
      { seed, numRuns: runs, unbiased: true, endOnFailure: true },
    );
  });
  console.log(
    `spendBatchBudget property: ${reached.cut}/${runs} batches cut, ${reached.hundreds} of 100+ ` +
      `responses, ${reached.recut} threshold cuts re-cut, ${reached.mixed} cut with mixed ` +
      `strategies, ${reached.spared} responses over an equal share spared (largest first), ` +
      `${reached.tiny} shares smaller than the marker`,
  );
  assert.ok(reached.cut >= runs / 3, `only ${reached.cut} batches cut`);
  assert.ok(reached.hundreds >= runs / 4, `only ${reached.hundreds} batches of 100+`);
  assert.ok(reached.recut >= runs / 10, `only ${reached.recut} re-cuts`);
  assert.ok(reached.mixed >= runs / 10, `only ${reached.mixed} batches with mixed strategies`);
  assert.ok(
    reached.spared >= runs / 5,
    `only ${reached.spared} spared responses over an equal share`,
  );
  assert.ok(reached.tiny >= runs / 20, `only ${reached.tiny} shares smaller than the marker`);
});
