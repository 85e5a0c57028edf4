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
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { MemoryPeakReport } from "./bench/memory_peak.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const SCRIPT = join(REPO, "tests", "bench", "memory_peak.ts");
const MIB = 1024 * 1024;
const RESULT_MIB = 100;
/** Peak RSS stays under this many times the result's size (above the baseline). */
const MAX_FACTOR = 4;
/** The cut response as recorded: the default 256KB threshold. */
const THRESHOLD_BYTES = 256 * 1024;

async function peak(source: string, via: string, mib: number): Promise<MemoryPeakReport> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      // Only --allow-all may read /proc/self/status (VmHWM). The fallback,
      // getrusage's ru_maxrss, would report this test runner's own peak:
      // Linux carries it over exec into the child.
      "--allow-all",
      SCRIPT,
      "--source",
      source,
      "--via",
      via,
      "--mib",
      String(mib),
    ],
    cwd: REPO,
    stdin: "null",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  const report = JSON.parse(new TextDecoder().decode(output.stdout)) as MemoryPeakReport;
  assert.equal(report.peakFrom, "VmHWM");
  return report;
}

const mib = (bytes: number) => (bytes / MIB).toFixed(1);

/** Measures the baseline and the big turn the same way, and asserts the target. */
async function assertTarget(source: string, via: string): Promise<void> {
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
