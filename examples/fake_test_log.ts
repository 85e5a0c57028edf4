/**
 * A deterministic fake test-run log of an exact size: the "big output" the
 * examples produce. The upstream example server returns it from its
 * `big_report` tool and `tools/noisy_test_run.ts` prints it, so a demo shows
 * what spillway does with a multi-megabyte tool result, and tests can
 * rebuild the exact text they expect to receive.
 *
 * @module
 */

const SUITES = ["parser", "lexer", "resolver", "codegen", "runtime", "storage", "net"];
const VERBS = ["parses", "rejects", "rounds_trips", "handles", "keeps", "reports", "skips"];
const NOUNS = ["empty_input", "unicode_names", "nested_blocks", "large_files", "timeouts", "utf8"];

/**
 * Renders `bytes` bytes (ASCII, so also `bytes` characters) of a test log:
 * a header, one line per test, about one failure in a hundred with its
 * assertion, and a summary line at the end. The same size always gives the same text.
 *
 * @param bytes the exact size of the log; at least 200
 * @returns the log text, ending with a newline
 * @throws {RangeError} when `bytes` is not an integer of at least 200
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fakeTestLog } from "./fake_test_log.ts";
 * const log = fakeTestLog(4096);
 * assert.equal(log.length, 4096);
 * assert.ok(log.startsWith("running "));
 * assert.match(log, /\ntest result: (ok|FAILED)\. \d+ passed; \d+ failed\n$/);
 * ```
 */
export function fakeTestLog(bytes: number): string {
  if (!Number.isSafeInteger(bytes) || bytes < 200) {
    throw new RangeError(`fakeTestLog: bytes must be an integer of at least 200, got ${bytes}`);
  }
  let seed = 42;
  const next = (n: number) => {
    // A small 32-bit LCG: the log must be identical on every run and machine.
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return (seed >>> 16) % n;
  };
  // Lines are encoded straight into one buffer and decoded once: keeping
  // hundreds of thousands of line strings alive until a join is mostly GC.
  const buffer = new Uint8Array(bytes);
  const encoder = new TextEncoder();
  let used = 0;
  const append = (line: string) => {
    used += encoder.encodeInto(line, buffer.subarray(used)).written;
  };
  append(`running ${SUITES.length} test suites\n`);
  let passed = 0;
  let failed = 0;
  // Room for the summary line, whose counts have at most 9 digits each.
  const summaryRoom = "test result: FAILED. 999999999 passed; 999999999 failed\n".length;
  for (let index = 1;; index++) {
    const name = `${SUITES[next(SUITES.length)]}::tests::${VERBS[next(VERBS.length)]}_${
      NOUNS[next(NOUNS.length)]
    }_${String(index).padStart(5, "0")}`;
    const failing = next(97) === 0;
    const line = failing
      ? `test ${name} ... FAILED\n    assertion failed: left == right (left: ${
        next(1000)
      }, right: ${next(1000)})\n`
      : `test ${name} ... ok (${next(250)} ms)\n`;
    if (used + line.length + summaryRoom > bytes) break;
    append(line);
    if (failing) failed++;
    else passed++;
  }
  const summary = `test result: ${
    failed > 0 ? "FAILED" : "ok"
  }. ${passed} passed; ${failed} failed\n`;
  // Progress dots fill the gap so the log is exactly `bytes` long.
  const gap = bytes - used - summary.length;
  if (gap > 0) append(`${".".repeat(gap - 1)}\n`);
  append(summary);
  return new TextDecoder().decode(buffer);
}
