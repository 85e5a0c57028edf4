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

Deno.test("ByteBuffer holds exactly the bytes appended, in order, growing as needed", async () => {
  const runs = 60;
  const reached = { grew: 0, grewPastDouble: 0, empty: 0 };
  // fast-check's default size keeps arrays tiny: lengths are drawn, bytes made.
  const length = fc.oneof(
    fc.integer({ min: 0, max: 100 }),
    fc.integer({ min: 0, max: 300_000 }),
  );
  await withTestSeed((seed) => {
    fc.assert(
      fc.property(fc.array(length, { maxLength: 12 }), (lengths) => {
        const parts = lengths.map((n, i) => part(n, i * 31));
        const buffer = new ByteBuffer();
        let capacity = 0;
        for (const bytes of parts) {
          buffer.append(bytes);
          const grownTo = buffer.bytes().buffer.byteLength;
          if (capacity > 0 && grownTo > capacity) {
            reached.grew++;
            if (grownTo > capacity * 2) reached.grewPastDouble++;
          }
          capacity = grownTo;
        }
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
      { seed, numRuns: runs },
    );
  });
  // Growth moves the bytes: the cases must make the buffer grow, by doubling and beyond.
  assert.ok(reached.grew >= runs, `only ${reached.grew} growths in ${runs} cases`);
  assert.ok(reached.grewPastDouble >= runs / 10, `only ${reached.grewPastDouble} large growths`);
  assert.ok(reached.empty >= 1, "no case left the buffer empty");
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
