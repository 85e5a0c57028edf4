/**
 * The memory bound this test holds (docs/performance.md states the tighter
 * target): "a 100 MiB tool result end to end stays under 4× its size in peak
 * RSS". Runs `tests/bench/memory_peak.ts` as a
 * subprocess (peak RSS is per process, so each measurement gets a fresh
 * one), once with a 1 KiB result through the same tool and path (the
 * baseline: a runtime that did the same work, minus the big result) and once
 * with 100 MiB, and asserts
 *
 *     peak(100 MiB) < 4 × 100 MiB + peak(1 KiB baseline)
 *
 * for a local tool (read from a pipe) and an upstream stdio MCP server, each
 * through `createRuntime`. The tool processes are separate and not counted:
 * the figure is the runtime's.
 * Linux only (the peak is the kernel's RSS high-water mark).
 */

import assert from "node:assert/strict";
import { measurePeak, type Source, type Via } from "./bench/memory_peak.ts";

const MIB = 1024 * 1024;
const RESULT_MIB = 100;
/** Peak RSS stays under this many times the result's size (above the baseline). */
const MAX_FACTOR = 4;
/** The cut response as recorded: the default 256KB threshold. */
const THRESHOLD_BYTES = 256 * 1024;

const peak = (source: Source, via: Via, mib: number) => measurePeak(source, via, mib);

const mib = (bytes: number) => (bytes / MIB).toFixed(1);

/** Measures the baseline and the big turn the same way, and asserts the target. */
async function assertTarget(source: Source, via: Via): Promise<void> {
  const baseline = await peak(source, via, 0);
  const big = await peak(source, via, RESULT_MIB);
  assert.equal(big.resultBytes, RESULT_MIB * MIB, "the tool returned the whole result");
  assert.equal(big.recordedBytes, THRESHOLD_BYTES, "recorded and delivered capped");
  const limit = MAX_FACTOR * RESULT_MIB * MIB + baseline.peakRssBytes;
  console.log(
    `${source} via ${via}: peak RSS ${mib(big.peakRssBytes)} MiB for ${RESULT_MIB} MiB ` +
      `(baseline ${mib(baseline.peakRssBytes)} MiB, so ` +
      `${((big.peakRssBytes - baseline.peakRssBytes) / big.resultBytes).toFixed(2)}× ` +
      `the result above it; limit ${mib(limit)} MiB), turn ${big.turnMs} ms`,
  );
  assert.ok(
    big.peakRssBytes < limit,
    `peak RSS ${mib(big.peakRssBytes)} MiB ≥ ${MAX_FACTOR} × ${RESULT_MIB} MiB + ` +
      `baseline ${mib(baseline.peakRssBytes)} MiB`,
  );
}

const linux = Deno.build.os === "linux";

Deno.test({
  name:
    `createRuntime keeps a ${RESULT_MIB} MiB local tool result under ${MAX_FACTOR}× in peak RSS`,
  ignore: !linux,
  fn: () => assertTarget("local", "runtime"),
});

Deno.test({
  name:
    `createRuntime keeps a ${RESULT_MIB} MiB upstream MCP result under ${MAX_FACTOR}× in peak RSS`,
  ignore: !linux,
  fn: () => assertTarget("upstream", "runtime"),
});

Deno.test({
  name: `spillway query (terminal reporter) keeps a ${RESULT_MIB} MiB upstream MCP result ` +
    `under ${MAX_FACTOR}× in peak RSS`,
  ignore: !linux,
  fn: () => assertTarget("upstream", "cli"),
});

/**
 * Outputs spillway streams (a local tool's stdout and stderr, `fs_read_file`) are held
 * as a window whatever their size: a 256 MiB one costs less than 96 MiB above
 * the baseline (about 40 MiB measured for 1 GiB; docs/performance.md). A
 * loose bound: holding the output whole would take over 256 MiB.
 */
const FLAT_MIB = 256;
const FLAT_LIMIT_MIB = 96;

async function assertFlat(source: Source, extra: readonly string[] = []): Promise<void> {
  const baseline = await measurePeak(source, "runtime", 0, extra);
  const big = await measurePeak(source, "runtime", FLAT_MIB, extra);
  assert.equal(big.resultBytes, FLAT_MIB * MIB, "the tool returned the whole result");
  assert.equal(big.recordedBytes, THRESHOLD_BYTES, "recorded and delivered capped");
  const above = big.peakRssBytes - baseline.peakRssBytes;
  console.log(
    `${source}${extra.join("")}: ${FLAT_MIB} MiB streamed, peak RSS ${mib(above)} MiB above ` +
      `the baseline (limit ${FLAT_LIMIT_MIB} MiB), turn ${big.turnMs} ms`,
  );
  assert.ok(above < FLAT_LIMIT_MIB * MIB, `${mib(above)} MiB above the baseline`);
}

Deno.test({
  name: `a local tool printing ${FLAT_MIB} MiB stays under ${FLAT_LIMIT_MIB} MiB above idle`,
  ignore: !linux,
  fn: () => assertFlat("local-stream"),
});

Deno.test({
  name: `a failing local tool printing ${FLAT_MIB} MiB to stderr stays flat too`,
  ignore: !linux,
  fn: () => assertFlat("local-stderr"),
});

Deno.test({
  name: `a spilled ${FLAT_MIB} MiB output and fs_read_file of ${FLAT_MIB} MiB stay flat too`,
  ignore: !linux,
  fn: async () => {
    await assertFlat("local-stream", ["--spill"]);
    await assertFlat("file");
  },
});
