import assert from "node:assert/strict";
import fc from "fast-check";
import { withTestSeed } from "../testing/seed.ts";
import { ByteSize } from "./byte_size.ts";

Deno.test("ByteSize.parse() reads counts with binary, case-insensitive units", () => {
  const cases: [string | number, number][] = [
    ["0", 0],
    ["1500", 1500],
    ["512b", 512],
    ["1k", 1024],
    ["1KB", 1024],
    ["1KiB", 1024],
    ["256KB", 262144],
    [" 1 mib ", 1048576],
    ["1MB", 1048576],
    ["2g", 2 * 1024 ** 3],
    ["1GiB", 1024 ** 3],
    [1048576, 1048576],
    [0, 0],
  ];
  for (const [input, bytes] of cases) assert.equal(ByteSize.parse(input).bytes, bytes, `${input}`);
});

Deno.test("ByteSize.parse() errors use the exact wording", () => {
  const golden: [string | number, string][] = [
    ["MB", "invalid size `MB`: expected a leading byte count"],
    ["", "invalid size ``: expected a leading byte count"],
    ["1TB", "invalid size `1TB`: unknown unit `tb` (expected B, KB, MB, or GB)"],
    ["99999999999999999999GB", "invalid size `99999999999999999999GB`: byte count out of range"],
    ["9007199254740991GB", "invalid size `9007199254740991GB`: value overflows"],
    [-1, "size must be non-negative, got `-1`"],
    ["-1KB", "size must be non-negative, got `-1KB`"],
    [
      "1.5MB",
      "invalid size `1.5MB`: expected a whole byte count (fractions are not supported; use a smaller unit)",
    ],
    ["12 k b", "invalid size `12 k b`: unknown unit `k b` (expected B, KB, MB, or GB)"],
    [1.5, "size must be a whole number of bytes, got `1.5`"],
  ];
  for (const [input, message] of golden) {
    assert.throws(() => ByteSize.parse(input), { message }, `${input}`);
  }
});

Deno.test("ByteSize.parse() raises SyntaxError for text and RangeError for ranges", () => {
  assert.throws(() => ByteSize.parse("1TB"), SyntaxError);
  assert.throws(() => ByteSize.parse("MB"), SyntaxError);
  assert.throws(() => ByteSize.parse("9007199254740991GB"), RangeError);
  assert.throws(() => ByteSize.parse(-1), RangeError);
});

Deno.test("ByteSize.toString() uses the largest unit that divides evenly", () => {
  const golden: [number, string][] = [
    [0, "0"],
    [1, "1"],
    [1500, "1500"],
    [1024, "1KB"],
    [1536, "1536"],
    [262144, "256KB"],
    [1048576, "1MB"],
    [3 * 1048576, "3MB"],
    [1024 ** 3, "1GB"],
    [1024 ** 3 + 1024, "1048577KB"],
  ];
  for (const [bytes, text] of golden) assert.equal(ByteSize.fromBytes(bytes).toString(), text);
});

Deno.test("ByteSize.human() truncates to one decimal", () => {
  const golden: [number, string][] = [
    [0, "0 B"],
    [512, "512 B"],
    [1023, "1023 B"],
    [1024, "1.0 KB"],
    [1536, "1.5 KB"],
    [2047, "1.9 KB"],
    [262144, "256.0 KB"],
    [637952, "623.0 KB"],
    [1048575, "1023.9 KB"],
    [1048576, "1.0 MB"],
    [3250586, "3.1 MB"],
    [10900000, "10.3 MB"],
    [1024 ** 3 * 5 + 1024 ** 3 / 2, "5.5 GB"],
  ];
  for (const [bytes, text] of golden) assert.equal(ByteSize.fromBytes(bytes).human(), text);
});

Deno.test("ByteSize.toString() round-trips through parse(), in every unit", async () => {
  const runs = 5000;
  // Uniform integers are almost never a multiple of 1 KB: draw multiples of each unit too.
  const multipleOf = (unit: number) =>
    fc.integer({ min: 0, max: Math.floor(Number.MAX_SAFE_INTEGER / unit) }).map((n) => n * unit);
  const bytes = fc.oneof(
    fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
    fc.integer({ min: 0, max: 100_000 }),
    multipleOf(1024),
    multipleOf(1024 ** 2),
    multipleOf(1024 ** 3),
  );
  const reached = new Map<string, number>();
  await withTestSeed((seed) => {
    fc.assert(
      fc.property(bytes, (bytes) => {
        const text = ByteSize.fromBytes(bytes).toString();
        const unit = /[A-Z]+$/.exec(text)?.[0] ?? "bytes";
        reached.set(unit, (reached.get(unit) ?? 0) + 1);
        assert.equal(ByteSize.parse(text).bytes, bytes, text);
      }),
      { seed, numRuns: runs },
    );
  });
  for (const unit of ["bytes", "KB", "MB", "GB"]) {
    const count = reached.get(unit) ?? 0;
    assert.ok(count >= runs / 10, `only ${count} of ${runs} sizes printed in ${unit}`);
  }
});
