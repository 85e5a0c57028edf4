import assert from "node:assert/strict";
import fc from "fast-check";
import { withTestSeed } from "../testing/seed.ts";
import { fileNamePart, MAX_FILE_NAME_PART } from "./file_name_part.ts";

const SAFE = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

Deno.test("fileNamePart() keeps safe short names and neutralises the rest", () => {
  const golden: [string, string][] = [
    ["cargo_test", "cargo_test"],
    ["fs-read.file", "fs-read.file"],
    ["cargo_test-arguments", "cargo_test-arguments"],
    ["../../etc/passwd", "_._.._etc_passwd"],
    ["..", "_."],
    [".hidden", "_hidden"],
    ["a/b", "a_b"],
    ["bell\u0007\u001b]0;title\u0007", "bell___0_title_"],
    ["new\nline\ttab", "new_line_tab"],
    ["grüße 😀", "gr__e___"],
    ["", "_"],
  ];
  for (const [text, part] of golden) assert.equal(fileNamePart(text), part, JSON.stringify(text));
  assert.equal(fileNamePart("x".repeat(10_000)), "x".repeat(MAX_FILE_NAME_PART));
});

Deno.test("fileNamePart() of any text is short, safe, and unchanged when it already was", async () => {
  const runs = 1000;
  const reached = { changed: 0, cut: 0, unchanged: 0 };
  const text = fc.oneof(
    fc.string({ unit: "binary", maxLength: 300 }),
    fc.string({ unit: "binary", size: "max", maxLength: 300 }),
    fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,70}$/),
    fc.constantFrom("..", ".", "../..", "/", "a/../b"),
  );
  await withTestSeed((seed) => {
    fc.assert(
      fc.property(text, (text) => {
        const part = fileNamePart(text);
        assert.match(part, SAFE);
        assert.ok(part.length <= MAX_FILE_NAME_PART, `${part.length} characters`);
        assert.notEqual(part, "..");
        if (part === text) reached.unchanged++;
        else reached.changed++;
        if (text.length > MAX_FILE_NAME_PART) reached.cut++;
        if (SAFE.test(text) && text.length <= MAX_FILE_NAME_PART) assert.equal(part, text);
      }),
      { seed, numRuns: runs },
    );
  });
  for (const [branch, count] of Object.entries(reached)) {
    assert.ok(count >= runs / 10, `only ${count} of ${runs} cases ${branch}`);
  }
});
