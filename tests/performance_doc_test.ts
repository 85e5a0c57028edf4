/**
 * docs/performance.md says what every bench measures: each file under
 * tests/bench/ has its entry in "What each bench measures", and every bench
 * named there exists.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";

const ROOT = join(import.meta.dirname!, "..");

/** The text of `heading`'s section, up to the next heading of the same level. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `docs/performance.md has no "${heading}"`);
  const rest = markdown.slice(start + heading.length + 2);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

Deno.test("docs/performance.md describes every bench in tests/bench, and only those", async () => {
  const doc = await Deno.readTextFile(join(ROOT, "docs", "performance.md"));
  const described = new Set(
    [...section(doc, "## What each bench measures").matchAll(/^- `(tests\/bench\/[\w.]+\.ts)`/gm)]
      .map(([, path]) => path),
  );
  const benches = new Set<string>();
  for await (const entry of Deno.readDir(join(ROOT, "tests", "bench"))) {
    if (entry.isFile && entry.name.endsWith(".ts")) benches.add(`tests/bench/${entry.name}`);
  }
  assert.ok(benches.size > 0, "no bench files found");
  assert.deepEqual([...benches].sort(), [...described].sort());
});

Deno.test("docs/performance.md stays under 350 lines, with its targets, figures and method", async () => {
  const doc = await Deno.readTextFile(join(ROOT, "docs", "performance.md"));
  const lines = doc.split("\n").length;
  assert.ok(
    lines <= 350,
    `docs/performance.md has ${lines} lines: keep it to 350 (history is in git)`,
  );
  for (const heading of ["## Targets", "## The latest figures", "## How to run them"]) {
    assert.ok(section(doc, heading).trim().length > 0, `"${heading}" is empty`);
  }
});
