import assert from "node:assert/strict";
import { SizeThreshold } from "./size_threshold.ts";

Deno.test("SizeThreshold.parse() accepts unlimited, sizes and byte counts", () => {
  assert.equal(SizeThreshold.parse("unlimited").isUnlimited, true);
  assert.equal(SizeThreshold.parse("unlimited").bytes, undefined);
  assert.equal(SizeThreshold.parse("Unlimited").toString(), "unlimited");
  assert.equal(SizeThreshold.parse("1KB").bytes?.bytes, 1024);
  assert.equal(SizeThreshold.parse(1024).bytes?.bytes, 1024);
  assert.equal(SizeThreshold.parse("512KB").toString(), "512KB");
  assert.equal(SizeThreshold.parse("1MB").isUnlimited, false);
});

Deno.test("SizeThreshold.DEFAULT is 256KB", () => {
  assert.equal(SizeThreshold.DEFAULT.bytes?.bytes, 262144);
  assert.equal(SizeThreshold.DEFAULT.toString(), "256KB");
});

Deno.test("SizeThreshold.parse() rejects anything below 1KB, 0 included", () => {
  const golden: [string | number, string][] = [
    [
      "512",
      'size_threshold `512` is below the 1KB minimum: use "unlimited" for no limit, or result = "skip" for no result at all',
    ],
    [
      0,
      'size_threshold `0` is below the 1KB minimum: use "unlimited" for no limit, or result = "skip" for no result at all',
    ],
    [
      "1023b",
      'size_threshold `1023b` is below the 1KB minimum: use "unlimited" for no limit, or result = "skip" for no result at all',
    ],
  ];
  for (const [input, message] of golden) {
    assert.throws(() => SizeThreshold.parse(input), { name: "RangeError", message });
  }
});

Deno.test("SizeThreshold.parse() passes ByteSize syntax errors through", () => {
  assert.throws(() => SizeThreshold.parse("lots"), {
    name: "SyntaxError",
    message: "invalid size `lots`: expected a leading byte count",
  });
});
