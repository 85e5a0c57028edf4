/**
 * capText on 100 MiB against the floor (one native UTF-8 length pass over
 * the same string) and against the naive approach (encode everything, cut
 * the bytes, decode the head). Target: capText ≤ 1.5× the floor, for every
 * strategy (head, tail, head_tail).
 */
import { Buffer } from "node:buffer";
import { capText } from "../../src/size/cap_text.ts";

const MIB = 1024 * 1024;
const CAP = 256 * 1024;

function build(unit: string, bytes: number): string {
  const unitBytes = Buffer.byteLength(unit, "utf8");
  const text = unit.repeat(Math.ceil(bytes / unitBytes));
  Buffer.byteLength(text, "utf8"); // flatten the rope once, outside the measurement
  return text;
}

const ascii = build("fn test_parser ... ok (0.01s)\n", 100 * MIB);
const mixed = build("テスト結果😀 données ✓ 测试通过 🚀\n", 100 * MIB);

function naive(text: string, cap: number): string {
  const all = new TextEncoder().encode(text);
  if (all.length <= cap) return text;
  return new TextDecoder().decode(all.subarray(0, cap - 64)) + "\n... [truncated]";
}

for (const [name, text] of [["ascii", ascii], ["mixed", mixed]] as const) {
  Deno.bench({
    name: `${name}: Buffer.byteLength (floor)`,
    group: name,
    baseline: true,
    fn: () => {
      Buffer.byteLength(text, "utf8");
    },
  });
  for (const strategy of ["head", "tail", "head_tail"] as const) {
    Deno.bench({
      name: `${name}: capText 100 MiB → 256KB (${strategy})`,
      group: name,
      fn: () => {
        capText(text, CAP, { strategy });
      },
    });
  }
  Deno.bench({
    name: `${name}: encode all, then decode (naive)`,
    group: name,
    fn: () => {
      naive(text, CAP);
    },
  });
}
