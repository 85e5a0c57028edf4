import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { capText, truncationMarker } from "./cap_text.ts";

const MARKER = /\n\.\.\. \[truncated, [0-9.]+ (?:B|KB|MB|GB) → [0-9.]+ (?:B|KB|MB|GB)\]$/;
const bytesOf = (s: string) => Buffer.byteLength(s, "utf8");

Deno.test("capText() returns a text at or under the limit unchanged", () => {
  const text = "hello, world";
  const result = capText(text, bytesOf(text));
  assert.equal(result.text, text);
  assert.equal(result.truncated, false);
  assert.equal(result.originalBytes, 12);
  assert.equal(result.bytes, 12);
});

Deno.test("capText() marker golden: 623.0 KB → 256.0 KB", () => {
  assert.equal(truncationMarker(637952, 262144), "\n... [truncated, 623.0 KB → 256.0 KB]");
  const result = capText("a".repeat(637952), 262144);
  assert.ok(result.text.endsWith("\n... [truncated, 623.0 KB → 256.0 KB]"));
  assert.equal(result.bytes, 262144);
  assert.equal(bytesOf(result.text), 262144);
  assert.equal(result.originalBytes, 637952);
});

Deno.test("capText() fills the limit to within 3 bytes with multibyte text", () => {
  const text = "日本語テキスト😀".repeat(10_000);
  const result = capText(text, 4096);
  assert.ok(result.bytes <= 4096 && result.bytes >= 4093, `${result.bytes}`);
  assert.equal(bytesOf(result.text), result.bytes);
});

Deno.test("capText() keeps a surrogate pair whole", () => {
  // "a" then emoji pairs: every cut position that would split a pair must back off.
  for (let cap = 60; cap < 80; cap++) {
    const result = capText("a" + "😀".repeat(40), cap);
    const head = result.text.slice(0, result.text.indexOf("\n... [truncated"));
    assert.ok(!/[\uD800-\uDBFF]$/.test(head), `cap ${cap} split a pair`);
    assert.ok(result.bytes <= cap);
  }
});

Deno.test("capText() survives lone surrogates and NUL bytes", () => {
  const text = "\uD800x\u0000\uDC00".repeat(5000) + "\x1b[31mred\x1b[0m";
  const result = capText(text, 2048);
  assert.ok(result.truncated);
  assert.ok(result.bytes <= 2048);
  assert.equal(bytesOf(result.text), result.bytes);
});

Deno.test("capText() with a limit smaller than the marker returns as much marker as fits", () => {
  const result = capText("z".repeat(100), 10);
  assert.ok(result.bytes <= 10);
  assert.equal(result.text, "\n... [trun");
  assert.equal(capText("z".repeat(100), 0).text, "");
});

Deno.test("capText() rejects a bad limit", () => {
  assert.throws(() => capText("x", -1), RangeError);
  assert.throws(() => capText("x", 1.5), RangeError);
});

// Arbitrary strings that mix ASCII, multibyte, astral, lone surrogates and NUL.
const anyText = fc.string({ unit: "binary", maxLength: 3000 });

Deno.test("capText() properties: within limit, prefix plus marker, marker iff cut, idempotent", () => {
  fc.assert(
    fc.property(anyText, fc.integer({ min: 64, max: 4000 }), (text, cap) => {
      const result = capText(text, cap);
      assert.ok(result.bytes <= cap);
      assert.equal(bytesOf(result.text), result.bytes);
      assert.equal(result.originalBytes, bytesOf(text));
      if (result.originalBytes <= cap) {
        assert.equal(result.truncated, false);
        assert.equal(result.text, text);
      } else {
        assert.equal(result.truncated, true);
        const match = MARKER.exec(result.text);
        assert.ok(match, "marker missing");
        const head = result.text.slice(0, match.index);
        assert.ok(text.startsWith(head), "head is not a prefix");
        const next = text.charCodeAt(head.length);
        const last = head.charCodeAt(head.length - 1);
        const splitsPair = last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
        assert.ok(!splitsPair, "split a surrogate pair");
        assert.ok(result.bytes >= cap - 3, `filled only ${result.bytes} of ${cap}`);
      }
      assert.equal(capText(result.text, cap).text, result.text);
    }),
    { numRuns: 3000 },
  );
});
