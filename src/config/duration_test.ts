import assert from "node:assert/strict";
import fc from "fast-check";
import { withTestSeed } from "../testing/seed.ts";
import { Duration, MAX_DURATION_MS } from "./duration.ts";

Deno.test("Duration.parse() reads text with units and numbers of seconds", () => {
  const cases: [string | number, number][] = [
    ["30m", 1_800_000],
    ["90s", 90_000],
    ["1h", 3_600_000],
    ["500ms", 500],
    [" 2 M ", 120_000],
    ["1.5s", 1_500],
    ["0.25h", 900_000],
    [1800, 1_800_000],
    [0.5, 500],
    [0, 0],
  ];
  for (const [input, ms] of cases) assert.equal(Duration.parse(input).ms, ms, `${input}`);
});

Deno.test("Duration.parse() errors use the exact wording", () => {
  const golden: [string | number, string][] = [
    ["30", 'invalid duration `30`: no unit (expected ms, s, m or h, e.g. "30s")'],
    ["30x", "invalid duration `30x`: unknown unit `x` (expected ms, s, m or h)"],
    ["m", 'invalid duration `m`: expected a number and a unit, e.g. "30m" or "90s"'],
    ["-1s", 'invalid duration `-1s`: expected a number and a unit, e.g. "30m" or "90s"'],
    ["0.0001s", "invalid duration `0.0001s`: finer than a millisecond"],
    ["25d", "invalid duration `25d`: unknown unit `d` (expected ms, s, m or h)"],
    ["597h", "invalid duration `597h`: longer than a timer can wait (24.8 days)"],
    [-1, "duration must be a non-negative number of seconds, got `-1`"],
  ];
  for (const [input, message] of golden) {
    assert.throws(() => Duration.parse(input), { message }, `${input}`);
  }
  assert.throws(() => Duration.parse("30x"), SyntaxError);
  assert.throws(() => Duration.parse("597h"), RangeError);
});

Deno.test("Duration.toString() uses the largest unit that divides evenly", () => {
  const golden: [number, string][] = [
    [0, "0ms"],
    [999, "999ms"],
    [1_000, "1s"],
    [1_500, "1500ms"],
    [90_000, "90s"],
    [1_800_000, "30m"],
    [7_200_000, "2h"],
    [5_400_000, "90m"],
  ];
  for (const [ms, text] of golden) assert.equal(Duration.fromMs(ms).toString(), text);
});

Deno.test("Duration.toString() round-trips through parse() for every duration", async () => {
  await withTestSeed((seed) => {
    let withUnit = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 0, max: MAX_DURATION_MS }),
          // Whole seconds, minutes and hours, which print with their own units.
          fc.integer({ min: 1, max: 596 }).map((h) => h * 3_600_000),
          fc.integer({ min: 1, max: 35_000 }).map((m) => m * 60_000),
          fc.integer({ min: 1, max: 2_000_000 }).map((s) => s * 1_000),
        ),
        (ms) => {
          const text = Duration.fromMs(ms).toString();
          if (!text.endsWith("ms")) withUnit++;
          assert.equal(Duration.parse(text).ms, ms, text);
        },
      ),
      { seed, numRuns: 500 },
    );
    assert.ok(withUnit > 100, `only ${withUnit} cases printed in s, m or h`);
  });
});
