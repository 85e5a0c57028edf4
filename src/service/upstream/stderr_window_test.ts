import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { withTestSeed } from "../../testing/seed.ts";
import { StderrWindow } from "./stderr_window.ts";

/** A window on a clock the test moves, and everything it showed. */
function windowed(budgetBytes: number, windowMs = 1000) {
  let now = 0;
  const shown: string[] = [];
  const window = new StderrWindow({
    label: "mcp.noisy",
    sink: (text) => shown.push(text),
    budgetBytes,
    windowMs,
    now: () => now,
  });
  return { window, shown, advance: (ms: number) => now += ms, text: () => shown.join("") };
}

Deno.test("StderrWindow passes a server's stderr as it came while within the budget", () => {
  const { window, shown } = windowed(100);
  window.write("starting\n");
  window.write("listening on stdio\n");
  window.end();
  assert.deepEqual(shown, ["starting\n", "listening on stdio\n"]);
});

Deno.test("StderrWindow shows whole lines up to the budget, then says so and counts the rest", () => {
  const { window, text, advance } = windowed(20);
  window.write("line one\nline two\nline three\n");
  window.write("x".repeat(1000));
  assert.equal(
    text(),
    "line one\nline two\n[mcp.noisy: more than 20 B of stderr in 1 s; the rest of this window is dropped]\n",
  );
  // The next window says what was dropped, then shows again.
  advance(1000);
  window.write("later\n");
  assert.ok(text().endsWith("[mcp.noisy: dropped 1011 B of stderr]\nlater\n"), text());
});

Deno.test("StderrWindow's own lines start on a line of their own, and end() reports the drops once", () => {
  const { window, text } = windowed(10);
  window.write("no newline");
  window.write(" and more");
  window.end();
  window.end();
  assert.equal(
    text(),
    "no newline\n[mcp.noisy: more than 10 B of stderr in 1 s; the rest of this window is dropped]\n" +
      "[mcp.noisy: dropped 9 B of stderr]\n",
  );
});

Deno.test("StderrWindow: what it shows of a server's text is within the budget per window, and shown + dropped is everything (seeded)", async () => {
  await withTestSeed((seed) => {
    const hits = { cut: 0, reportedEarly: 0, nothingDropped: 0 };
    const piece = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom("\n", "é\n", "line\n", "😀😀\n"),
      fc.integer({ min: 1, max: 30 }).map((n) => `${"z".repeat(n)}\n`),
    );
    // Each write comes in the same window, or one window later.
    const write = fc.tuple(piece, fc.constantFrom(false, false, false, true));
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 120 }),
        fc.array(write, { maxLength: 20 }),
        (budget, writes) => {
          const { window, shown, advance } = windowed(budget);
          let total = 0;
          let windowBytes = 0;
          let dropped = 0;
          let cut = false;
          const account = (outputs: readonly string[], early: boolean) => {
            for (const out of outputs) {
              const own = /^\n?\[mcp\.noisy: (?:more than|dropped (\d+) B)/.exec(out);
              if (own === null) {
                windowBytes += Buffer.byteLength(out);
                assert.ok(windowBytes <= budget, `${windowBytes} B shown in a window of ${budget}`);
              } else if (own[1] === undefined) {
                cut = true;
              } else {
                dropped += Number(own[1]);
                if (early) hits.reportedEarly++;
              }
            }
          };
          for (const [text, later] of writes) {
            if (later) {
              advance(1000);
              windowBytes = 0;
            }
            total += Buffer.byteLength(text);
            const before = shown.length;
            window.write(text);
            account(shown.slice(before), true);
          }
          const before = shown.length;
          window.end();
          account(shown.slice(before), false);
          if (cut) hits.cut++;
          if (dropped === 0 && total > 0) hits.nothingDropped++;
          const shownBytes = shown.filter((out) => !/^\n?\[mcp\.noisy: /.test(out))
            .reduce((sum, out) => sum + Buffer.byteLength(out), 0);
          // Here every count stays under 1 KB, which is shown exactly.
          assert.equal(shownBytes + dropped, total);
        },
      ),
      { seed, numRuns: 300 },
    );
    for (const [branch, count] of Object.entries(hits)) {
      assert.ok(count >= 30, `only ${count} of 300 runs reached ${branch}`);
    }
  });
});
