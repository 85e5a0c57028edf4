import assert from "node:assert/strict";
import fc from "fast-check";
import { withTestSeed } from "../testing/seed.ts";
import { headLines, lastLines, previewLines } from "./preview_lines.ts";

const split = (headPercent: number) => ({ strategy: "head_tail", headPercent }) as const;
const TAIL = { strategy: "tail", headPercent: 50 } as const;
const HEAD = { strategy: "head", headPercent: 50 } as const;
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1}`).join("\n") + "\n";

Deno.test("lastLines() gives the last lines headLines() counts, for any text (property)", async () => {
  await withTestSeed((seed) => {
    let endsInNewline = 0;
    let emptyLines = 0;
    let moreThanAll = 0;
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b", "\n", "é", "😀"), { maxLength: 40 }),
        fc.integer({ min: 0, max: 12 }),
        (parts, limit) => {
          const text = parts.join("");
          const all = headLines(text, Infinity);
          if (text.endsWith("\n")) endsInNewline++;
          if (all.shown.includes("")) emptyLines++;
          if (limit > all.count) moreThanAll++;
          assert.deepEqual(lastLines(text, limit), limit === 0 ? [] : all.shown.slice(-limit));
        },
      ),
      { seed, numRuns: 500 },
    );
    // The generator reaches the branches that matter.
    assert.ok(endsInNewline >= 50, `${endsInNewline} texts ended in a newline`);
    assert.ok(emptyLines >= 50, `${emptyLines} texts had an empty line`);
    assert.ok(moreThanAll >= 50, `${moreThanAll} asked for more lines than there are`);
  });
});

Deno.test("previewLines() shows the ends the truncation keeps, shared as truncation_split says", () => {
  const response = { id: "c", content: numbered(100), isError: false };
  const lines = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => `${from + i}`);
  assert.deepEqual(previewLines(response, 10, HEAD), { count: 100, head: lines(1, 10), tail: [] });
  assert.deepEqual(previewLines(response, 10, TAIL), {
    count: 100,
    head: [],
    tail: lines(91, 100),
  });
  assert.deepEqual(previewLines(response, 10, split(50)), {
    count: 100,
    head: lines(1, 5),
    tail: lines(96, 100),
  });
  assert.deepEqual(previewLines(response, 10, split(20)), {
    count: 100,
    head: lines(1, 2),
    tail: lines(93, 100),
  });
  // Each end keeps a line while there are two to share; one line goes to the head.
  assert.deepEqual(previewLines(response, 2, split(1)), { count: 100, head: ["1"], tail: ["100"] });
  assert.deepEqual(previewLines(response, 1, split(50)), { count: 100, head: ["1"], tail: [] });
  // A result that fits is shown whole, each end holding its share.
  assert.deepEqual(previewLines({ ...response, content: numbered(3) }, 10, TAIL), {
    count: 3,
    head: [],
    tail: lines(1, 3),
  });
  assert.deepEqual(previewLines({ ...response, content: numbered(3) }, 10, split(50)), {
    count: 3,
    head: lines(1, 2),
    tail: lines(3, 3),
  });
  assert.deepEqual(previewLines(response, 0, TAIL), { count: 100, head: [], tail: [] });
});

Deno.test("previewLines() shows a json or auto tool's first lines: a json cut keeps the head", () => {
  const pretty = JSON.stringify({ rows: Array.from({ length: 50 }, (_, i) => i) }, null, 2);
  const response = { id: "c", content: pretty, isError: false };
  const first = pretty.split("\n").slice(0, 4);
  for (const strategy of ["json", "auto"] as const) {
    assert.deepEqual(previewLines(response, 4, { strategy, headPercent: 50 }), {
      count: 54,
      head: first,
      tail: [],
    });
  }
});

Deno.test("previewLines() takes the tail of a text too large to hold from its window, marking a line shown from inside", () => {
  const window = {
    tail: "ne 99\nline 100\n",
    bytes: 10_000_000,
    lines: 5000,
    path: "x",
    temporary: true,
  };
  const response = { id: "c", content: "line 1\nline 2\n", isError: false, window };
  assert.deepEqual(previewLines(response, 2, TAIL), {
    count: 5000,
    head: [],
    tail: ["…ne 99", "line 100"],
  });
  assert.deepEqual(previewLines(response, 1, TAIL).tail, ["line 100"]);
  assert.deepEqual(previewLines(response, 4, split(50)), {
    count: 5000,
    head: ["line 1", "line 2"],
    tail: ["…ne 99", "line 100"],
  });
});
