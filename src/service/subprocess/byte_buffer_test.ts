import assert from "node:assert/strict";
import fc from "fast-check";
import { ByteBuffer } from "./byte_buffer.ts";

Deno.test("ByteBuffer holds exactly the bytes appended, in order", () => {
  fc.assert(
    fc.property(fc.array(fc.uint8Array({ maxLength: 300_000 }), { maxLength: 12 }), (parts) => {
      const buffer = new ByteBuffer();
      for (const part of parts) buffer.append(part);
      const expected = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
      let offset = 0;
      for (const part of parts) {
        expected.set(part, offset);
        offset += part.byteLength;
      }
      assert.equal(buffer.length, expected.byteLength);
      assert.deepEqual(buffer.bytes(), expected);
      buffer.release();
    }),
    { numRuns: 40 },
  );
});

Deno.test("ByteBuffer grows past its reservation threshold without losing bytes", () => {
  const buffer = new ByteBuffer();
  const chunk = new Uint8Array(64 * 1024);
  for (let i = 0; i < 80; i++) buffer.append(chunk.fill(i));
  const bytes = buffer.bytes();
  assert.equal(bytes.byteLength, 80 * 64 * 1024);
  for (let i = 0; i < 80; i++) assert.equal(bytes[i * 64 * 1024 + 1000], i);
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
