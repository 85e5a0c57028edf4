/**
 * Both caps with `truncation = "json"` and `"auto"`: the phase end cuts a
 * JSON response to a JSON prefix, the batch ceiling cuts it again from the
 * original (one marker), a window is cut as its whole text, and a text that
 * is not JSON is cut as head with a notice that says so.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { capJson } from "../size/cap_json.ts";
import { capText } from "../size/cap_text.ts";
import { cutText } from "../size/cut_text.ts";
import { JsonScanner } from "../size/json_scanner.ts";
import { SizeThreshold } from "../size/size_threshold.ts";
import type { Truncation, TruncationStrategy } from "../size/truncation.ts";
import { longestHead, longestTail } from "../size/_utf8_edges.ts";
import { jsonTextOfAbout } from "../testing/arbitrary_json.ts";
import { textOfAbout } from "../testing/arbitrary_text.ts";
import { withTestSeed } from "../testing/seed.ts";
import { capReview } from "./cap_review.ts";
import { formatNotice } from "./notice.ts";
import { acceptedReview, type Review } from "./review.ts";
import { spendBatchBudget } from "./spend_batch_budget.ts";

const bytesOf = (text: string) => Buffer.byteLength(text, "utf8");
const JSON_CUT: Truncation = { strategy: "json", headPercent: 50 };
const AUTO_CUT: Truncation = { strategy: "auto", headPercent: 50 };
const review = (tool: string, content: string, id = "c1") =>
  acceptedReview(tool, { id, content, isError: false });
/** Everything before the marker line. */
const jsonOf = (content: string) => JSON.parse(content.slice(0, content.lastIndexOf("\n")));

const issues = JSON.stringify(
  Array.from({ length: 2000 }, (_, n) => ({ number: n, title: `Issue ${n}`, state: "open" })),
);

Deno.test("capReview() with truncation json cuts a JSON response to JSON; the notice is the usual one", () => {
  const { review: cut, notice } = capReview(review("issues", issues), SizeThreshold.parse("4KB"), {
    truncation: JSON_CUT,
  });
  assert.equal(cut.status, "replaced");
  assert.equal(cut.uncut, issues);
  assert.deepEqual(cut.truncation, JSON_CUT);
  const items = jsonOf(cut.response.content);
  assert.equal(items.at(-1), "… 1,916 more items");
  assert.deepEqual(items[0], { number: 0, title: "Issue 0", state: "open" });
  assert.ok(cut.response.content.endsWith("\n... [truncated, 99.3 KB → 4.0 KB]"));
  assert.ok(notice !== undefined);
  assert.equal(
    formatNotice(notice),
    "issues: sent 4.0 KB of 99.3 KB to the assistant (size_threshold)",
  );
});

Deno.test("capReview() notice golden: a json cut of text that is not JSON says it was cut as head", () => {
  const log = "{main} starting up\n" + "request served\n".repeat(5000);
  const { review: cut, notice } = capReview(review("server_log", log), SizeThreshold.parse("1KB"), {
    truncation: JSON_CUT,
  });
  assert.equal(cut.response.content, capText(log, 1024).text);
  assert.equal(
    formatNotice(notice!),
    "server_log: sent 1.0 KB of 73.2 KB to the assistant (size_threshold); " +
      "not one JSON value: cut as head",
  );
  const quoted = JSON.stringify("a quoted text ".repeat(500));
  const auto = capReview(review("echo", quoted), SizeThreshold.parse("1KB"), {
    truncation: AUTO_CUT,
  });
  assert.equal(
    formatNotice(auto.notice!),
    "echo: sent 1.0 KB of 6.8 KB to the assistant (size_threshold); " +
      "not a JSON object or array: cut as head",
  );
  const number = capReview(review("pi", "3." + "1".repeat(5000)), SizeThreshold.parse("1KB"), {
    truncation: JSON_CUT,
  });
  assert.equal(
    formatNotice(number.notice!),
    "pi: sent 1.0 KB of 4.8 KB to the assistant (size_threshold); " +
      "too small for a JSON cut: cut as head",
  );
});

Deno.test("spendBatchBudget() cuts a json response again from its original: one marker, still JSON", () => {
  const big = JSON.stringify({ rows: Array.from({ length: 60_000 }, (_, i) => ({ i, v: "x" })) });
  const capped = capReview(review("rows", big), SizeThreshold.parse("1536KB"), {
    truncation: JSON_CUT,
  }).review;
  const other = review("blob", "b".repeat(1536 * 1024), "c2");
  const { reviews, notices } = spendBatchBudget([capped, other]);
  const content = reviews[0]!.response.content;
  assert.equal(content.split("[truncated").length, 2);
  assert.equal(content, capJson(big, notices[0]!.capBytes).text);
  assert.match(jsonOf(content).rows.at(-1), /^… [\d,]+ more items$/);
  assert.equal(notices[0]!.fallback, undefined);
  assert.ok(reviews.reduce((sum, r) => sum + bytesOf(r.response.content), 0) <= 2 * 1024 * 1024);
});

Deno.test("capReview() cuts a json window (an output too large to hold) as its whole text", () => {
  const windowBytes = 16 * 1024;
  const head = longestHead(issues, windowBytes).text;
  const scanner = new JsonScanner();
  scanner.push(head);
  scanner.mark();
  scanner.push(issues.slice(head.length));
  const held = acceptedReview("issues", {
    id: "c1",
    content: head,
    isError: false,
    window: {
      tail: longestTail(issues, windowBytes).text,
      bytes: bytesOf(issues),
      lines: 1,
      path: "/spool/c1",
      temporary: true,
      json: scanner.end(),
    },
  });
  for (const cap of ["1KB", "4KB", "16KB"]) {
    const threshold = SizeThreshold.parse(cap);
    const viaWindow = capReview(held, threshold, { truncation: JSON_CUT }).review;
    const whole = capReview(review("issues", issues), threshold, { truncation: JSON_CUT }).review;
    assert.equal(viaWindow.response.content, whole.response.content, cap);
  }
});

const strategies: readonly TruncationStrategy[] = ["head", "tail", "head_tail", "json", "auto"];

Deno.test("spendBatchBudget() with json and text strategies mixed: fits, each cut with its own strategy (property)", async () => {
  await withTestSeed((seed) => {
    const reached = { json: 0, fallback: 0, batches: 0 };
    const entry = fc.record({
      text: fc.oneof(
        jsonTextOfAbout(200_000).map((json) => json.text),
        fc.integer({ min: 0, max: 300_000 }).chain(textOfAbout).map((text) => text.text),
      ),
      strategy: fc.constantFrom(...strategies),
      threshold: fc.option(fc.integer({ min: 1024, max: 512 * 1024 }), { freq: 3 }),
    });
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 30 }), (entries) => {
        const batch: Review[] = entries.map(({ text, strategy, threshold }, i) => {
          const truncation = { strategy, headPercent: 50 };
          const limit = threshold === null
            ? SizeThreshold.UNLIMITED
            : SizeThreshold.parse(threshold);
          return capReview(review(`tool${i}`, text, `c${i}`), limit, { truncation }).review;
        });
        // Half the real ceiling: most batches of these sizes go over it, so most runs cut.
        const budget = 512 * 1024;
        const { reviews, notices } = spendBatchBudget(batch, budget);
        const spent = reviews.reduce((sum, r) => sum + bytesOf(r.response.content), 0);
        assert.ok(spent <= budget, `${spent} > ${budget}`);
        if (notices.length > 0) reached.batches++;
        for (const notice of notices) {
          const index = Number(notice.callId.slice(1));
          const before = batch[index]!;
          const uncut = before.uncut ?? before.response.content;
          const cut = cutText(uncut, notice.capBytes, before.truncation);
          assert.equal(reviews[index]!.response.content, cut.text);
          assert.equal(notice.fallback, cut.fallback);
          const strategy = before.truncation?.strategy ?? "head";
          if ((strategy === "json" || strategy === "auto") && cut.fallback === undefined) {
            jsonOf(cut.text);
            reached.json++;
          }
          if (cut.fallback !== undefined) reached.fallback++;
        }
      }),
      { seed, numRuns: 60 },
    );
    assert.ok(reached.json >= 15 && reached.fallback >= 5, JSON.stringify(reached));
  });
});
