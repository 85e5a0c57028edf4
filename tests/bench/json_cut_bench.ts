/**
 * The json cut (`truncation = "json"`) of 100 MiB of JSON against
 * `JSON.parse` of the same text in the same run: the floor any
 * structure-aware cut pays, since deciding that the text is one JSON value
 * takes reading all of it. Target: ≤ 1.5× `JSON.parse`. Two texts: an
 * array of objects and one huge string. Also measured: the scanner alone in
 * 64 KiB pieces (as the collector scans a stream), and, printed before the
 * table, the peak memory of the cut above the process holding the text
 * (fresh processes, `tests/bench/json_cut_memory.ts`), beside `JSON.parse`'s.
 */

import { capJson } from "../../src/size/cap_json.ts";
import { JsonScanner } from "../../src/size/json_scanner.ts";
import { type JsonBenchShape, jsonBenchText, measureJsonCutMemory } from "./json_cut_memory.ts";

const MIB = 1024 * 1024;
const CAP = 256 * 1024;
const SHAPES: readonly JsonBenchShape[] = ["objects", "string"];

if (Deno.build.os === "linux") {
  for (const shape of SHAPES) {
    const cut = await measureJsonCutMemory(shape, "cut");
    const parse = await measureJsonCutMemory(shape, "parse");
    const mib = (bytes: number) => (bytes / MIB).toFixed(1);
    console.log(
      `json cut of 100 MiB (${shape}): peak RSS ${mib(cut.aboveBytes)} MiB above the process ` +
        `holding the text (JSON.parse of it: ${mib(parse.aboveBytes)} MiB)`,
    );
  }
}

for (const shape of SHAPES) {
  const text = jsonBenchText(shape, 100 * MIB);
  Deno.bench({
    name: `${shape}: JSON.parse of 100 MiB (floor)`,
    group: shape,
    baseline: true,
    fn: () => {
      JSON.parse(text);
    },
  });
  Deno.bench({
    name: `${shape}: capJson 100 MiB → 256KB`,
    group: shape,
    fn: () => {
      capJson(text, CAP);
    },
  });
  Deno.bench({
    name: `${shape}: JsonScanner in 64 KiB pieces (a stream's scan)`,
    group: shape,
    fn: () => {
      const scanner = new JsonScanner();
      for (let at = 0; at < text.length; at += 65536) scanner.push(text.slice(at, at + 65536));
      scanner.end();
    },
  });
}
