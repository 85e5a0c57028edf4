import assert from "node:assert/strict";
import fc from "fast-check";
import { withTestSeed } from "../../testing/seed.ts";
import { ByteBuffer } from "./byte_buffer.ts";

/** `length` bytes that differ from those of any other part and position. */
function part(length: number, tag: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 7 + tag) & 0xff;
  return bytes;
}

/** The first index where `a` and `b` differ, or -1 (a mismatch report, not megabytes of diff). */
function firstDifference(a: Uint8Array, b: Uint8Array): number {
  if (a.byteLength !== b.byteLength) return Math.min(a.byteLength, b.byteLength);
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return i;
  return -1;
}

/**
 * Cases of the property below, and the fewest of them that must reach each
 * branch. What a case reaches depends on fast-check's draws, so each
 * threshold is set from the rate measured over 240,000 cases (4,000 seeds),
 * where a run of `RUNS` cases falls short with probability under 1e-9
 * (binomial tail): growth by doubling 46% of cases (at least 15 of 100),
 * growth past double 29% (at least 5), an empty buffer 34% (at least 5,
 * which the zero-length cases make likely; arrays of random lengths alone
 * end empty in 11% of cases, and a run of 100 would miss that 1 time in
 * 180,000). A branch never reached still fails at once.
 */
const RUNS = 100;
const AT_LEAST = { grew: 15, grewPastDouble: 5, empty: 5 };

Deno.test("ByteBuffer holds exactly the bytes appended, in order, growing as needed", async () => {
  const reached = { grew: 0, grewPastDouble: 0, empty: 0 };
  // fast-check's default size keeps arrays tiny: lengths are drawn, bytes made.
  const length = fc.oneof(
    fc.integer({ min: 0, max: 100 }),
    fc.integer({ min: 0, max: 300_000 }),
  );
  const lengths = fc.oneof(
    { arbitrary: fc.array(length, { maxLength: 12 }), weight: 3 },
    { arbitrary: fc.array(fc.constant(0), { maxLength: 3 }), weight: 1 },
  );
  await withTestSeed((seed) => {
    fc.assert(
      fc.property(lengths, (lengths) => {
        const parts = lengths.map((n, i) => part(n, i * 31));
        const buffer = new ByteBuffer();
        let capacity = 0;
        let grew = false;
        let grewPastDouble = false;
        for (const bytes of parts) {
          buffer.append(bytes);
          const grownTo = buffer.bytes().buffer.byteLength;
          if (capacity > 0 && grownTo > capacity * 2) grewPastDouble = true;
          else if (capacity > 0 && grownTo > capacity) grew = true;
          capacity = grownTo;
        }
        if (grew) reached.grew++;
        if (grewPastDouble) reached.grewPastDouble++;
        if (buffer.length === 0) reached.empty++;
        const expected = new Uint8Array(parts.reduce((sum, bytes) => sum + bytes.byteLength, 0));
        let offset = 0;
        for (const bytes of parts) {
          expected.set(bytes, offset);
          offset += bytes.byteLength;
        }
        assert.equal(buffer.length, expected.byteLength);
        assert.equal(firstDifference(buffer.bytes(), expected), -1);
        buffer.release();
      }),
      { seed, numRuns: RUNS },
    );
    // Growth moves the bytes: cases must make the buffer grow, by doubling and beyond.
    for (const [branch, least] of Object.entries(AT_LEAST)) {
      const count = reached[branch as keyof typeof reached];
      assert.ok(
        count >= least,
        `only ${count} of ${RUNS} cases reached ${branch} (${least} needed)`,
      );
    }
  });
});

Deno.test("ByteBuffer grows past its reservation threshold in place, without losing bytes", () => {
  const buffer = new ByteBuffer();
  const chunk = new Uint8Array(256 * 1024);
  // 20 MiB: past the 16 MiB from which the buffer reserves address space.
  for (let i = 0; i < 80; i++) buffer.append(chunk.fill(i));
  const bytes = buffer.bytes();
  assert.equal(bytes.byteLength, 80 * 256 * 1024);
  assert.ok(bytes.buffer instanceof ArrayBuffer && bytes.buffer.resizable, "not reserved");
  for (let i = 0; i < 80; i++) assert.equal(bytes[i * 256 * 1024 + 1000], i);
  buffer.release();
});

Deno.test("ByteBuffer.release() frees the content and leaves an empty, reusable buffer", () => {
  const buffer = new ByteBuffer();
  buffer.append(new Uint8Array(3 * 1024 * 1024).fill(7));
  const view = buffer.bytes();
  buffer.release();
  assert.equal(view.byteLength, 0);
  assert.equal(buffer.length, 0);
  assert.equal(buffer.bytes().byteLength, 0);
  buffer.append(new Uint8Array([1, 2]));
  assert.deepEqual(buffer.bytes(), new Uint8Array([1, 2]));
});

Deno.test("ByteBuffer does not keep the arrays it was given", () => {
  const buffer = new ByteBuffer();
  const part = new Uint8Array([1, 2, 3]);
  buffer.append(part);
  part[0] = 9;
  assert.deepEqual(buffer.bytes(), new Uint8Array([1, 2, 3]));
  assert.deepEqual(part, new Uint8Array([9, 2, 3]));
});
