import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { textOfAbout } from "../testing/arbitrary_text.ts";
import { withTestSeed } from "../testing/seed.ts";
import { capText, truncationMarker } from "./cap_text.ts";
import type { TextWindow } from "./text_window.ts";
import type { TextTruncationStrategy as TruncationStrategy } from "./truncation.ts";
import { longestHead, longestTail } from "./_utf8_edges.ts";

const bytesOf = (s: string) => Buffer.byteLength(s, "utf8");
const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;
/** Whether cutting `text` at unit `at` splits a surrogate pair. */
const splitsPair = (text: string, at: number) =>
  at > 0 && at < text.length && isHigh(text.charCodeAt(at - 1)) && isLow(text.charCodeAt(at));

/** The head cut as it was before the other strategies existed: the head strategy must match it byte for byte. */
function headCutBefore(text: string, capBytes: number): string {
  const originalBytes = bytesOf(text);
  if (originalBytes <= capBytes) return text;
  const marker = "\n" + truncationMarker(originalBytes, capBytes);
  const markerBytes = bytesOf(marker);
  const prefix = (t: string, budget: number) =>
    budget === 0 ? "" : t.slice(0, new TextEncoder().encodeInto(t, new Uint8Array(budget)).read);
  if (markerBytes > capBytes) return prefix(marker, capBytes);
  return prefix(text, capBytes - markerBytes) + marker;
}

Deno.test("capText() returns a text at or under the limit unchanged", () => {
  const text = "hello, world";
  for (const strategy of ["head", "tail", "head_tail"] as const) {
    const result = capText(text, bytesOf(text), { strategy });
    assert.equal(result.text, text);
    assert.equal(result.truncated, false);
    assert.equal(result.originalBytes, 12);
    assert.equal(result.bytes, 12);
  }
});

Deno.test("capText() marker golden: 623.0 KB → 256.0 KB", () => {
  assert.equal(truncationMarker(637952, 262144), "... [truncated, 623.0 KB → 256.0 KB]");
  const result = capText("a".repeat(637952), 262144);
  assert.ok(result.text.endsWith("a\n... [truncated, 623.0 KB → 256.0 KB]"));
  assert.equal(result.bytes, 262144);
  assert.equal(bytesOf(result.text), 262144);
  assert.equal(result.originalBytes, 637952);
});

Deno.test("capText() layouts golden: head, tail, head_tail", () => {
  const text = "BEGIN\n" + "-".repeat(5000) + "\nEND";
  const m = "... [truncated, 4.8 KB → 1.0 KB]";
  const budget = 1024 - bytesOf(m);
  assert.equal(capText(text, 1024).text, text.slice(0, budget - 1) + "\n" + m);
  assert.equal(
    capText(text, 1024, { strategy: "tail" }).text,
    m + "\n" + text.slice(-(budget - 1)),
  );
  const even = capText(text, 1024, { strategy: "head_tail" }).text;
  const kept = budget - 2; // 990 bytes: 495 + 495
  assert.equal(even, text.slice(0, kept / 2) + "\n" + m + "\n" + text.slice(-kept / 2));
  const split = capText(text, 1024, { strategy: "head_tail", headPercent: 20 }).text;
  const head = Math.floor(kept * 0.2);
  assert.equal(split, text.slice(0, head) + "\n" + m + "\n" + text.slice(-(kept - head)));
  for (const cut of [even, split]) assert.equal(bytesOf(cut), 1024);
});

Deno.test("capText() puts a reference line right after the marker, inside the limit", () => {
  const text = "BEGIN\n" + "-".repeat(5000) + "\nEND";
  const m = "... [truncated, 4.8 KB → 1.0 KB]";
  const r = '... [full output: read_tool_output ref="sha256:00" (5010 bytes)]';
  const kept = 1024 - bytesOf(m) - bytesOf(r) - 1;
  const reference = { reference: r };
  assert.equal(capText(text, 1024, reference).text, text.slice(0, kept - 1) + "\n" + m + "\n" + r);
  assert.equal(
    capText(text, 1024, { strategy: "tail", ...reference }).text,
    m + "\n" + r + "\n" + text.slice(-(kept - 1)),
  );
  const both = capText(text, 1024, { strategy: "head_tail", ...reference }).text;
  const half = Math.floor((kept - 2) / 2);
  const rest = kept - 2 - half;
  assert.equal(both, text.slice(0, half) + "\n" + m + "\n" + r + "\n" + text.slice(-rest));
  assert.equal(bytesOf(both), 1024);
  assert.equal(capText("short", 1024, reference).text, "short");
});

Deno.test("capText() cuts a window like the whole text it stands for", () => {
  const text = "head line\n" + "é".repeat(50_000) + "\ntail line";
  const window: TextWindow = {
    head: text.slice(0, 3000),
    tail: text.slice(-3000),
    bytes: bytesOf(text),
  };
  for (const strategy of ["head", "tail", "head_tail"] as const) {
    assert.equal(capText(window, 4096, { strategy }).text, capText(text, 4096, { strategy }).text);
  }
  const small = { head: "all of it", tail: "", bytes: 9 };
  assert.equal(capText(small, 1024).text, "all of it");
  assert.throws(() => capText({ head: "a", tail: "b", bytes: 3 }, 1024), RangeError);
});

Deno.test("capText() tail keeps the conclusion of a test run", () => {
  const run = Array.from({ length: 20_000 }, (_, i) => `test case_${i} ... ok`).join("\n") +
    "\n\ntest result: FAILED. 19999 passed; 1 failed";
  const cut = capText(run, 4096, { strategy: "tail" });
  assert.ok(cut.text.startsWith("... [truncated, 438.4 KB → 4.0 KB]\n"), cut.text.slice(0, 60));
  assert.ok(cut.text.endsWith("test result: FAILED. 19999 passed; 1 failed"));
  assert.ok(cut.bytes <= 4096 && cut.bytes >= 4093);
});

Deno.test("capText() fills the limit to within 3 bytes with multibyte text", () => {
  const text = "日本語テキスト😀".repeat(10_000);
  for (const strategy of ["head", "tail", "head_tail"] as const) {
    const result = capText(text, 4096, { strategy });
    assert.ok(result.bytes <= 4096 && result.bytes >= 4093, `${strategy}: ${result.bytes}`);
    assert.equal(bytesOf(result.text), result.bytes);
  }
});

Deno.test("capText() keeps a surrogate pair whole at either edge", () => {
  for (let cap = 60; cap < 90; cap++) {
    const text = "a" + "😀".repeat(40) + "b";
    for (const strategy of ["head", "tail", "head_tail"] as const) {
      const result = capText(text, cap, { strategy });
      assert.ok(result.bytes <= cap);
      assert.equal(bytesOf(result.text), result.bytes);
      assert.ok(
        !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(result.text),
        `${strategy} at ${cap} split a pair`,
      );
    }
  }
});

Deno.test("capText() survives lone surrogates and NUL bytes, keeping them as they are", () => {
  const text = "\uD800x\u0000\uDC00".repeat(5000) + "\x1b[31mred\x1b[0m";
  for (const strategy of ["head", "tail", "head_tail"] as const) {
    const result = capText(text, 2048, { strategy });
    assert.ok(result.truncated);
    assert.ok(result.bytes <= 2048);
    assert.equal(bytesOf(result.text), result.bytes);
    if (strategy !== "head") assert.ok(result.text.endsWith("\x1b[31mred\x1b[0m"));
    if (strategy !== "tail") assert.ok(result.text.startsWith("\uD800x\u0000\uDC00\uD800"));
  }
});

Deno.test("capText() with a limit smaller than the marker returns as much of the marker part as fits", () => {
  assert.equal(capText("z".repeat(100), 10).text, "\n... [trun");
  assert.equal(capText("z".repeat(100), 10, { strategy: "tail" }).text, "... [trunc");
  assert.equal(capText("z".repeat(100), 10, { strategy: "head_tail" }).text, "\n... [trun");
  assert.equal(
    capText("z".repeat(100), 28, { strategy: "tail" }).text,
    "... [truncated, 100 B → 28",
  );
  assert.equal(
    capText("z".repeat(100), 32, { strategy: "tail" }).text,
    "... [truncated, 100 B → 32 B]\n",
  );
  assert.equal(
    capText("z".repeat(100), 33, { strategy: "tail" }).text,
    "... [truncated, 100 B → 33 B]\nz",
  );
  for (const strategy of ["head", "tail", "head_tail"] as const) {
    assert.equal(capText("z".repeat(100), 0, { strategy }).text, "");
  }
});

Deno.test("capText() rejects a bad limit or split", () => {
  assert.throws(() => capText("x", -1), RangeError);
  assert.throws(() => capText("x", 1.5), RangeError);
  assert.throws(
    () => capText("x", 10, { strategy: "head_tail", headPercent: 0 }),
    /from 1 to 99, got `0`/,
  );
  assert.throws(() => capText("x", 10, { headPercent: 12.5 }), RangeError);
});

/** Splits a cut text into its parts by its strategy's layout; fails when the layout is wrong. */
function layoutOf(cut: string, strategy: TruncationStrategy, marker: string) {
  const first = cut.indexOf(marker);
  assert.ok(first >= 0, "marker missing");
  assert.equal(cut.indexOf(marker, first + 1), -1, "marker twice");
  const before = cut.slice(0, first);
  const after = cut.slice(first + marker.length);
  if (strategy === "head") {
    assert.equal(after, "");
    assert.ok(before.endsWith("\n"));
    return { head: before.slice(0, -1), tail: "" };
  }
  assert.ok(after.startsWith("\n"));
  if (strategy === "tail") {
    assert.equal(before, "");
    return { head: "", tail: after.slice(1) };
  }
  assert.ok(before.endsWith("\n"));
  return { head: before.slice(0, -1), tail: after.slice(1) };
}

const truncation = fc.record({
  strategy: fc.constantFrom<TruncationStrategy>("head", "tail", "head_tail"),
  headPercent: fc.oneof(fc.constant(50), fc.integer({ min: 1, max: 99 })),
});

// A limit from 1 KB to 300 KB and a text from empty to 4× the limit: most cases cut.
const capCase = fc.integer({ min: 1024, max: 300 * 1024 }).chain((cap) =>
  fc.record({
    cap: fc.constant(cap),
    generated: fc.oneof(
      { weight: 1, arbitrary: textOfAbout(0) },
      { weight: 9, arbitrary: fc.integer({ min: 0, max: 4 * cap }).chain(textOfAbout) },
    ),
    truncation,
  })
);

Deno.test("capText() properties, every strategy: within the limit, edges of the input on character boundaries, marker once, idempotent, head as before", async () => {
  const runs = 600;
  const reached = {
    cut: 0,
    big: 0,
    empty: 0,
    boundaryMoved: 0,
    surrogateEdge: 0,
    byStrategy: new Map<string, number>(),
  };
  await withTestSeed((seed) => {
    fc.assert(
      fc.property(capCase, ({ cap, generated: { text }, truncation }) => {
        const { strategy } = truncation;
        const result = capText(text, cap, truncation);
        const originalBytes = bytesOf(text);
        assert.equal(result.originalBytes, originalBytes);
        assert.ok(result.bytes <= cap, `${result.bytes} > ${cap}`);
        assert.equal(bytesOf(result.text), result.bytes);
        if (text === "") reached.empty++;
        if (strategy === "head") assert.equal(result.text, headCutBefore(text, cap));
        if (originalBytes <= cap) {
          assert.equal(result.truncated, false);
          assert.equal(result.text, text);
          return;
        }
        reached.cut++;
        reached.byStrategy.set(strategy, (reached.byStrategy.get(strategy) ?? 0) + 1);
        if (originalBytes >= 100 * 1024) reached.big++;
        assert.equal(result.truncated, true);
        const marker = truncationMarker(originalBytes, cap);
        const { head, tail } = layoutOf(result.text, strategy, marker);
        assert.ok(text.startsWith(head), "head is not a prefix of the input");
        assert.ok(text.endsWith(tail), "tail is not a suffix of the input");
        assert.ok(!splitsPair(text, head.length), "head split a surrogate pair");
        assert.ok(!splitsPair(text, text.length - tail.length), "tail split a surrogate pair");
        const surrogateAt = (i: number) => isHigh(text.charCodeAt(i)) || isLow(text.charCodeAt(i));
        if (surrogateAt(head.length) || surrogateAt(text.length - tail.length - 1)) {
          reached.surrogateEdge++;
        }
        // Fewer bytes than the limit: an edge moved back to a character start.
        if (result.bytes < cap) reached.boundaryMoved++;
        assert.ok(result.bytes >= cap - 3, `filled only ${result.bytes} of ${cap}`);
        if (strategy === "head_tail") {
          const kept = cap - bytesOf(marker) - 2;
          const share = Math.floor(kept * truncation.headPercent / 100);
          const headBytes = bytesOf(head);
          assert.ok(headBytes <= share && headBytes >= share - 3, `head ${headBytes} of ${share}`);
        }
        assert.equal(capText(result.text, cap, truncation).text, result.text, "not idempotent");
        // A window of at least the limit on each side cuts the same.
        const reach = cap + (originalBytes % 5000);
        const windowHead = longestHead(text, reach);
        const window: TextWindow = windowHead.bytes * 2 >= originalBytes
          ? { head: text, tail: "", bytes: originalBytes }
          : { head: windowHead.text, tail: longestTail(text, reach).text, bytes: originalBytes };
        assert.equal(capText(window, cap, truncation).text, result.text, "window cut differs");
      }),
      { seed, numRuns: runs, unbiased: true },
    );
  });
  console.log(
    `capText property: ${reached.cut}/${runs} cases cut (${
      [...reached.byStrategy].map(([s, n]) => `${s} ${n}`).join(", ")
    }), ` +
      `${reached.big} of them from 100 KB or more, ${reached.empty} empty texts, ` +
      `${reached.boundaryMoved} cuts moved an edge back to a character start, ` +
      `${reached.surrogateEdge} cut next to a surrogate`,
  );
  assert.ok(reached.cut >= runs / 2, `only ${reached.cut} of ${runs} cases cut`);
  for (const strategy of ["head", "tail", "head_tail"]) {
    assert.ok((reached.byStrategy.get(strategy) ?? 0) >= runs / 10, `too few ${strategy} cuts`);
  }
  assert.ok(reached.empty >= 10, `only ${reached.empty} empty texts`);
  assert.ok(reached.big >= runs / 10, `only ${reached.big} cuts of texts from 100 KB`);
  assert.ok(reached.boundaryMoved >= runs / 10, `only ${reached.boundaryMoved} edges moved back`);
  assert.ok(
    reached.surrogateEdge >= runs / 20,
    `only ${reached.surrogateEdge} cuts next to a surrogate`,
  );
});
