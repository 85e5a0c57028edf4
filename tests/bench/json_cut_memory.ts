/**
 * Peak memory of one json cut of 100 MiB of JSON, above the process with
 * the text already built (the memory figure of docs/performance.md "The
 * json cut"). Builds the text, lets the collector settle, resets the
 * kernel's high-water mark (`/proc/self/clear_refs`), cuts, and prints one
 * JSON line: the resident size before, the peak during, and the difference.
 * `--what parse` measures `JSON.parse` of the same text the same way. The
 * texts ({@linkcode jsonBenchText}) are the ones `json_cut_bench.ts` times.
 *
 *     deno run --allow-all tests/bench/json_cut_memory.ts \
 *       [--shape objects|string] [--what cut|parse|stream] [--mib N]
 *
 * (`--allow-all` only so it may read and reset `/proc/self`.)
 *
 * @module
 */

import { capJson } from "../../src/size/cap_json.ts";
import { JsonScanner } from "../../src/size/json_scanner.ts";
import { Buffer } from "node:buffer";

/** The shapes measured. */
export type JsonBenchShape = "objects" | "string";

/** A JSON text of `bytes` UTF-8 bytes (or a record more) of `shape`. */
export function jsonBenchText(shape: JsonBenchShape, bytes: number): string {
  if (shape === "string") {
    const line = 'fn parse(input: &str) -> Result<Value, "Error"> { /* naïve */ }\n';
    const content = line.repeat(Math.ceil(bytes / (line.length + 4)));
    return flat(JSON.stringify(content));
  }
  const records: string[] = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const record = JSON.stringify({
      id: i,
      title: `Issue ${i}: the parser drops a ${i % 2 ? "naïve" : "漢字"} name`,
      state: i % 3 ? "open" : "closed",
      labels: ["bug", `p${i % 4}`],
      score: i * 0.25,
      author: { login: `user${i % 97}`, site_admin: false },
    });
    records.push(record);
    size += Buffer.byteLength(record, "utf8") + 1;
  }
  return flat(`[${records.join(",")}]`);
}

/** `text`, flattened (a rope is joined once here, not inside the measurement). */
function flat(text: string): string {
  Buffer.byteLength(text, "utf8");
  return text;
}

/** What the script prints. */
export interface JsonCutMemoryReport {
  readonly shape: JsonBenchShape;
  readonly what: "cut" | "parse" | "stream";
  readonly textBytes: number;
  /** Resident size with the text built, just before the measured work. */
  readonly beforeBytes: number;
  /** The high-water mark of the resident size during it. */
  readonly peakBytes: number;
  /** `peakBytes - beforeBytes`. */
  readonly aboveBytes: number;
}

const MIB = 1024 * 1024;

function status(field: "VmRSS" | "VmHWM"): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(
    Deno.readTextFileSync("/proc/self/status"),
  );
  if (match === null) throw new Error(`no ${field} in /proc/self/status`);
  return Number(match[1]) * 1024;
}

function flag(name: string, fallback: string): string {
  const index = Deno.args.indexOf(`--${name}`);
  return index < 0 ? fallback : Deno.args[index + 1] ?? fallback;
}

/**
 * Runs this script in a fresh process and returns its report.
 *
 * @throws when the script fails
 */
export async function measureJsonCutMemory(
  shape: JsonBenchShape,
  what: "cut" | "parse" | "stream",
  mib = 100,
): Promise<JsonCutMemoryReport> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-all",
      "--v8-flags=--expose-gc",
      new URL(import.meta.url).pathname,
      ...["--shape", shape, "--what", what, "--mib", String(mib)],
    ],
    stdin: "null",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  if (output.code !== 0) throw new Error(`json_cut_memory.ts failed (${output.code}): ${stderr}`);
  return JSON.parse(new TextDecoder().decode(output.stdout)) as JsonCutMemoryReport;
}

if (import.meta.main) {
  const shape = flag("shape", "objects") as JsonBenchShape;
  const what = flag("what", "cut") as "cut" | "parse" | "stream";
  const text = jsonBenchText(shape, Number(flag("mib", "100")) * MIB);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  Deno.writeTextFileSync("/proc/self/clear_refs", "5");
  const beforeBytes = status("VmRSS");
  if (what === "parse") JSON.parse(text);
  else if (what === "cut") capJson(text, 256 * 1024);
  else {
    // As the collector scans a stream: 64 KiB pieces.
    const scanner = new JsonScanner();
    for (let at = 0; at < text.length; at += 65536) scanner.push(text.slice(at, at + 65536));
    scanner.end();
  }
  const peakBytes = status("VmHWM");
  const report: JsonCutMemoryReport = {
    shape,
    what,
    textBytes: new TextEncoder().encode(text).length,
    beforeBytes,
    peakBytes,
    aboveBytes: peakBytes - beforeBytes,
  };
  console.log(JSON.stringify(report));
}
