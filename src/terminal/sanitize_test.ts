import assert from "node:assert/strict";
import fc from "fast-check";
import { withTestSeed } from "../testing/seed.ts";
import { sanitizeForTerminal } from "./sanitize.ts";

/** Every code unit a terminal could act on or reorder text by. */
const DANGEROUS = [
  ...Array.from({ length: 0x20 }, (_, i) => i).filter((c) => c !== 0x09 && c !== 0x0a),
  ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i), // DEL and C1
  0x061c,
  0x200e,
  0x200f,
  0x202a,
  0x202b,
  0x202c,
  0x202d,
  0x202e,
  0x2066,
  0x2067,
  0x2068,
  0x2069,
];

function dangerousIn(text: string, options: { singleLine?: boolean } = {}): string[] {
  return [...text].filter((c) =>
    DANGEROUS.includes(c.charCodeAt(0)) || (options.singleLine === true && c === "\n")
  );
}

Deno.test("sanitizeForTerminal() shows each kind of control in its visible form", () => {
  assert.equal(sanitizeForTerminal("\x1b]0;pwned\x07"), "␛]0;pwned\\x07");
  assert.equal(sanitizeForTerminal("\x9b2J\x7f\0"), "\\x9b2J\\x7f\\x00");
  assert.equal(
    sanitizeForTerminal("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"),
    "\\u061c\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069",
  );
  assert.equal(sanitizeForTerminal("a\tb\nc"), "a\tb\nc");
  assert.equal(sanitizeForTerminal("a\tb\nc", { singleLine: true }), "a\tb\\x0ac");
});

Deno.test("sanitizeForTerminal() keeps ordinary text byte for byte, emoji and RTL letters included", () => {
  const text = "fs_list_files: sent 256.0 KB of 3.1 MB — ✓ 日本語 שלום 👩‍💻";
  assert.equal(sanitizeForTerminal(text), text);
  assert.equal(sanitizeForTerminal(text, { singleLine: true }), text);
});

Deno.test("sanitizeForTerminal() property: nothing a terminal acts on survives, the rest is kept", async () => {
  // Strings built from code units, biased so that most hold a control.
  const unit = fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 2, arbitrary: fc.constantFrom(...DANGEROUS, 0x09, 0x0a) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }) },
  );
  const text = fc.array(unit, { maxLength: 200, size: "max" })
    .map((units) => String.fromCharCode(...units));
  let withControls = 0;
  let runs = 0;
  await withTestSeed((seed) =>
    fc.assert(
      fc.property(text, fc.boolean(), (input, singleLine) => {
        runs++;
        const found = dangerousIn(input, { singleLine });
        if (found.length > 0) withControls++;
        const output = sanitizeForTerminal(input, { singleLine });
        assert.deepEqual(dangerousIn(output, { singleLine }), []);
        if (found.length === 0) assert.equal(output, input);
        // Every other character is kept, in order: removing the stand-ins gives the input back.
        const restored = output.replace(/␛|\\x[0-9a-f]{2}|\\u[0-9a-f]{4}/g, (stand) => {
          if (stand === "␛") return "\x1b";
          return String.fromCharCode(parseInt(stand.slice(2), 16));
        });
        if (!/␛|\\x[0-9a-f]{2}|\\u[0-9a-f]{4}/.test(input)) assert.equal(restored, input);
      }),
      { seed, numRuns: 1000 },
    )
  );
  assert.ok(withControls >= runs / 2, `only ${withControls} of ${runs} cases held a control`);
});
