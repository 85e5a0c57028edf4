import assert from "node:assert/strict";
import fc from "fast-check";
import { capJson } from "../size/cap_json.ts";
import { capText, utf8Length } from "../size/cap_text.ts";
import { jsonTextOfAbout } from "../testing/arbitrary_json.ts";
import { withTestSeed } from "../testing/seed.ts";
import { recut } from "./_recut.ts";

const MARKERS = /\n\.\.\. \[truncated, /g;

Deno.test("recut() cuts a recorded cut again: one marker, the original size, within the cap", () =>
  withTestSeed((seed) => {
    let recutMarked = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "binary", minLength: 2000, maxLength: 20_000, size: "max" }),
          fc.integer({ min: 2000, max: 300_000 }).map((n) => "é🙂x".repeat(n / 6)),
        ),
        // Both caps as thousandths of the size before them, so most cases cut twice.
        fc.integer({ min: 50, max: 1100 }),
        fc.integer({ min: 5, max: 1200 }),
        (original, firstPermille, secondPermille) => {
          const recorded = capText(
            original,
            Math.floor(utf8Length(original) * firstPermille / 1000),
          );
          const secondCap = Math.floor(recorded.bytes * secondPermille / 1000);
          const again = recut(recorded.text, secondCap);
          if (recorded.bytes <= secondCap) {
            assert.equal(again, recorded.text); // fits: the same string
            return;
          }
          assert.ok(utf8Length(again) <= secondCap, `${utf8Length(again)} > ${secondCap}`);
          const markers = again.match(MARKERS)?.length ?? 0;
          if (recorded.truncated && secondCap >= 40) {
            recutMarked++;
            assert.equal(markers, 1, again.slice(-80));
            const named = /truncated, ([^→]+) →/.exec(recorded.text.slice(-80))?.[1];
            assert.ok(again.endsWith(`]`) && again.includes(`[truncated, ${named} → `));
            assert.ok(recorded.text.startsWith(again.slice(0, again.lastIndexOf("\n... ["))));
          }
          assert.equal(recut(again, secondCap), again); // idempotent
        },
      ),
      { seed, numRuns: 300 },
    );
    assert.ok(recutMarked >= 150, `only ${recutMarked} cases re-cut a marked text`);
  }));

Deno.test("recut() of a text without a marker is capText's cut", () => {
  const text = "a".repeat(5000);
  assert.equal(recut(text, 1024), capText(text, 1024).text);
  assert.equal(recut("short", 1024), "short");
});

Deno.test("recut() keeps the old marker's size: 3.1 MB stays 3.1 MB", () => {
  const recorded = capText("z".repeat(3_250_586), 262_144).text;
  assert.ok(recorded.endsWith("\n... [truncated, 3.1 MB → 256.0 KB]"));
  const again = recut(recorded, 4096);
  assert.ok(again.endsWith("\n... [truncated, 3.1 MB → 4.0 KB]"), again.slice(-60));
  assert.ok(utf8Length(again) <= 4096);
});

Deno.test("recut() keeps a tail cut a tail cut, and a head cut a head cut", () => {
  const original = "line of a test run\n".repeat(40_000) + "test result: ok";
  for (const strategy of ["head", "tail"] as const) {
    const recorded = capText(original, 262_144, { strategy }).text;
    assert.equal(recut(recorded, 4096), capText(original, 4096, { strategy }).text);
  }
});

Deno.test("recut() of a head_tail cut keeps both ends, one marker, and the reference line", () => {
  const original = "# Report\n" + "row\n".repeat(200_000) + "## Summary";
  const reference = '... [full output: read_tool_output ref="sha256:00" (800018 bytes)]';
  const recorded = capText(original, 262_144, { strategy: "head_tail", reference }).text;
  const again = recut(recorded, 4096);
  assert.ok(utf8Length(again) <= 4096 && utf8Length(again) >= 4093);
  const [head, tail, ...more] = again.split(
    "\n... [truncated, 781.2 KB → 4.0 KB]\n" + reference + "\n",
  );
  assert.equal(more.length, 0, again);
  assert.ok(original.startsWith(head!) && head!.startsWith("# Report\nrow\n"));
  assert.ok(original.endsWith(tail!) && tail!.endsWith("row\n## Summary"));
  assert.ok(Math.abs(utf8Length(head!) - utf8Length(tail!)) <= 4);
  assert.equal(recut(again, 4096), again);
});

Deno.test("recut() of a json cut keeps it JSON: one marker, the original size, within the cap (property)", () =>
  withTestSeed((seed) => {
    const reached = { json: 0, head: 0, fits: 0 };
    fc.assert(
      fc.property(
        fc.integer({ min: 3_000, max: 200_000 }).chain(jsonTextOfAbout),
        fc.integer({ min: 50, max: 900 }),
        fc.integer({ min: 5, max: 1100 }),
        fc.constantFrom<"json" | "auto">("json", "auto"),
        (generated, firstPermille, secondPermille, strategy) => {
          const { text } = generated;
          const firstCap = Math.max(64, Math.floor(utf8Length(text) * firstPermille / 1000));
          const recorded = capJson(text, firstCap, { strategy });
          const secondCap = Math.max(0, Math.floor(recorded.bytes * secondPermille / 1000));
          const again = recut(recorded.text, secondCap);
          if (recorded.bytes <= secondCap) {
            reached.fits++;
            assert.equal(again, recorded.text);
            return;
          }
          assert.ok(utf8Length(again) <= secondCap, `${utf8Length(again)} > ${secondCap}`);
          assert.equal(recut(again, secondCap), again); // idempotent
          if (!recorded.truncated || recorded.fallback !== undefined) return;
          const at = again.lastIndexOf("\n... [truncated, ");
          if (at < 0 || secondCap < 64) return; // no room for the whole marker
          assert.equal(again.match(MARKERS)?.length, 1, again.slice(-80));
          const named = /truncated, ([^→]+) →/.exec(recorded.text.slice(-80))?.[1];
          assert.ok(again.slice(at).startsWith(`\n... [truncated, ${named} → `), again.slice(at));
          try {
            JSON.parse(again.slice(0, at));
            reached.json++;
          } catch {
            // Too small a cap for any JSON value of it: cut as head, a prefix.
            reached.head++;
            assert.ok(secondCap < 200, `a json cut recut as head under ${secondCap} bytes`);
            assert.ok(recorded.text.startsWith(again.slice(0, at)));
          }
        },
      ),
      { seed, numRuns: 150 },
    );
    console.log(`recut of json cuts: ${JSON.stringify(reached)}`);
    assert.ok(reached.json >= 60, JSON.stringify(reached));
  }));

Deno.test("recut() of a json cut: valid JSON, no notes of its own, the marker naming the tool's size; golden", () => {
  const value = {
    meta: { tags: Array.from({ length: 50 }, (_, i) => `tag-${i}`) },
    items: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `item ${i}` })),
  };
  const recorded = capJson(JSON.stringify(value), 8192).text;
  assert.ok(
    recorded.endsWith(',"… 1,729 more items"]}\n... [truncated, 58.8 KB → 8.0 KB]'),
    recorded.slice(-80),
  );
  // The items the first cut kept, cut again; its note (counting the tool's items) is dropped.
  const items = [...value.items.slice(0, 7), { id: 7, name: "it" }];
  assert.equal(
    recut(recorded, 700),
    JSON.stringify({ meta: value.meta, items }) + "\n... [truncated, 58.8 KB → 700 B]",
  );
  assert.equal(
    recut(recorded, 256),
    '{"meta":{"tags":["tag-0","tag-1","tag-2","tag-3","tag-4","tag-5","tag-6","tag-7","tag-8",' +
      '"tag-9","tag-10","tag-11","tag-12","tag-13","tag-14","tag-15","tag-16","tag-17","tag-18",' +
      '"tag-19","tag-20","tag-21","tag-22","ta"]}}\n... [truncated, 58.8 KB → 256 B]',
  );
});
