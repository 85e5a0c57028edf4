/**
 * Outputs too large to hold (a local tool's stdout and stderr, `fs_read_file`):
 *
 * - memory: a local tool printing 1 GiB, measured as peak RSS above an idle
 *   runtime (the same turn with 1 KiB) in fresh processes through
 *   `tests/bench/memory_peak.ts`, plain, with `spill = true`, to stderr
 *   (and failing), one 1 GiB JSON array under `truncation = "json"` (scanned
 *   as it streams, cut as JSON), and `fs_read_file` of a 1 GiB file. Target: under 64 MiB. Printed before the
 *   bench table, once each workload was checked (the whole size reached the
 *   Host, 256KB was recorded);
 * - time: streaming 64 MiB through an `OutputCollector` into a spool file,
 *   against writing the same bytes to a file (the floor); and 64 MiB of one
 *   JSON array, which the collector also scans as JSON all the way (a log
 *   stops the scan at its first character).
 */

import { OutputCollector } from "../../src/service/output_collector.ts";
import { spoolSink } from "../../src/service/output_sink.ts";
import { measurePeak, type Source } from "./memory_peak.ts";

const MIB = 1024 * 1024;
const GIB_MIB = 1024;
const TARGET_MIB = 64;

async function memoryFigure(source: Source, extra: readonly string[], label: string) {
  const baseline = await measurePeak(source, "runtime", 0, extra);
  const big = await measurePeak(source, "runtime", GIB_MIB, extra);
  // A json cut stops short of the limit by at most 2 KiB (plus 96 B a level: one here).
  const recorded = source === "local-json"
    ? big.recordedBytes <= 256 * 1024 && big.recordedBytes > 254 * 1024
    : big.recordedBytes === 256 * 1024;
  if (big.resultBytes !== GIB_MIB * MIB || !recorded) {
    throw new Error(`${label}: the workload did not run as intended: ${JSON.stringify(big)}`);
  }
  const above = (big.peakRssBytes - baseline.peakRssBytes) / MIB;
  console.log(
    `${label}: peak RSS ${above.toFixed(1)} MiB above an idle runtime ` +
      `(${(big.peakRssBytes / MIB).toFixed(1)} vs ${
        (baseline.peakRssBytes / MIB).toFixed(1)
      } MiB; ` +
      `target < ${TARGET_MIB} MiB: ${
        above < TARGET_MIB ? "met" : "NOT met"
      }), turn ${big.turnMs} ms`,
  );
}

if (Deno.build.os === "linux") {
  await memoryFigure("local-stream", [], "local tool printing 1 GiB");
  await memoryFigure("local-stream", ["--spill"], "local tool printing 1 GiB, spill = true");
  await memoryFigure("local-stderr", [], "failing local tool printing 1 GiB to stderr");
  await memoryFigure("local-json", [], "local tool printing a 1 GiB JSON array, truncation = json");
  await memoryFigure("file", [], "fs_read_file of a 1 GiB file");
}

const STREAM_BYTES = 64 * MIB;
const chunk = new TextEncoder().encode("test parser::case_0000 ... ok (0.01s)\n".repeat(1772))
  .subarray(0, 64 * 1024);
const dir = await Deno.makeTempDir({ prefix: "spillway_output_bench_" });

Deno.bench({
  name: "write 64 MiB to a file in 64 KiB chunks (floor)",
  group: "stream",
  baseline: true,
  async fn() {
    const path = `${dir}/floor.txt`;
    using file = await Deno.open(path, { write: true, create: true, truncate: true });
    for (let written = 0; written < STREAM_BYTES; written += chunk.length) {
      for (let at = 0; at < chunk.length;) at += await file.write(chunk.subarray(at));
    }
  },
});

Deno.bench({
  name: "stream 64 MiB through an OutputCollector into a spool file",
  group: "stream",
  async fn() {
    const collector = new OutputCollector(spoolSink(dir, 2 * MIB));
    for (let written = 0; written < STREAM_BYTES; written += chunk.length) {
      await collector.push(chunk);
    }
    const output = await collector.finish();
    if (output.kind !== "window" || output.window.bytes !== STREAM_BYTES) {
      throw new Error("the collector did not hold a window of the whole output");
    }
    await Deno.remove(output.window.path);
  },
});

// One JSON array of records, 64 KiB at a time: `[` first, `]` last, whole records between.
const record = JSON.stringify({ id: 1, title: "the parser drops a name", labels: ["bug"] });
const recordsChunk = new TextEncoder().encode(
  ("," + record).repeat(Math.floor(64 * 1024 / (record.length + 1))),
);

for (const scansJson of [true, false]) {
  Deno.bench({
    name: `stream 64 MiB of one JSON array through an OutputCollector (${
      scansJson ? "scanned as JSON" : "not scanned: a head tool"
    })`,
    group: "stream",
    async fn() {
      const collector = new OutputCollector(spoolSink(dir, 2 * MIB), { scansJson });
      await collector.push(new TextEncoder().encode("[" + record));
      for (let written = 0; written < STREAM_BYTES; written += recordsChunk.length) {
        await collector.push(recordsChunk);
      }
      await collector.push(new TextEncoder().encode("]"));
      const output = await collector.finish();
      const scanned = output.kind === "window" && output.window.json?.value === "array";
      if (output.kind !== "window" || scanned !== scansJson) {
        throw new Error("the collector did not scan the output as asked");
      }
      await Deno.remove(output.window.path);
    },
  });
}

globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
