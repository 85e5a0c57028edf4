import assert from "node:assert/strict";
import { controlCharacters } from "./control_characters.ts";

/** The code points each class holds, written out as numbers. */
const C0_C1 = [...range(0x00, 0x1f), ...range(0x7f, 0x9f)];
const BIDI = [0x061c, 0x200e, 0x200f, ...range(0x202a, 0x202e), ...range(0x2066, 0x2069)];
const LINE_SEPARATORS = [0x2028, 0x2029];

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

/** Every UTF-16 code unit the pattern matches, alone. */
function matched(pattern: RegExp): number[] {
  const units: number[] = [];
  for (let unit = 0; unit <= 0xffff; unit++) {
    pattern.lastIndex = 0;
    if (pattern.test(String.fromCharCode(unit))) units.push(unit);
  }
  return units;
}

const sorted = (units: number[]) => [...units].sort((a, b) => a - b);

Deno.test("controlCharacters() matches exactly C0, DEL, C1 and bidi controls, LS/PS on request, minus what is kept", () => {
  assert.deepEqual(matched(controlCharacters()), sorted([...C0_C1, ...BIDI]));
  assert.deepEqual(
    matched(controlCharacters({ lineSeparators: true })),
    sorted([...C0_C1, ...LINE_SEPARATORS, ...BIDI]),
  );
  assert.deepEqual(
    matched(controlCharacters({ keep: "\t\n" })),
    sorted([...C0_C1, ...BIDI].filter((u) => u !== 0x09 && u !== 0x0a)),
  );
});
