/**
 * A growable byte buffer for collecting a process's output: what local tool
 * runs and the upstream stdio framing use so that a 100 MB result costs its
 * size in memory, not two or three times that.
 *
 * Up to 16 MiB it doubles plain buffers (fast: a 5 MB message is collected
 * in ~0.7 ms). Past that it moves to a resizable `ArrayBuffer` that reserves
 * address space up front and grows in place, so growing never holds an old
 * and a new copy at once (doubling peaked at 2–3× the content for 100 MB;
 * reserving for small content cost 4× the time in page faults).
 * {@linkcode ByteBuffer.release} frees the memory at once instead of at the
 * next major GC; owners of large content should call it as soon as they are
 * done (a reservation is address space, and the GC does not count it).
 *
 * @module
 */

/** The first capacity allocated. */
const INITIAL_CAPACITY = 64 * 1024;

/**
 * Content size from which the buffer moves to a reserved, resizable one:
 * 16 MiB. Smaller outputs (nearly all) never reserve address space.
 */
const RESERVE_FROM_BYTES = 16 * 1024 * 1024;

/**
 * Address space reserved by a large buffer: 64 GiB. Only the bytes written
 * are backed by memory; content beyond it moves on to plain buffers.
 */
const RESERVED_BYTES = 2 ** 36;

/**
 * Bytes appended in order, readable as one `Uint8Array`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ByteBuffer } from "./byte_buffer.ts";
 * const buffer = new ByteBuffer();
 * buffer.append(new TextEncoder().encode("hello, "));
 * buffer.append(new TextEncoder().encode("world"));
 * assert.equal(new TextDecoder().decode(buffer.bytes()), "hello, world");
 * buffer.release();
 * assert.equal(buffer.length, 0);
 * ```
 */
export class ByteBuffer {
  #buffer: ArrayBuffer | undefined;
  #length = 0;

  /** How many bytes were appended since the last release. */
  get length(): number {
    return this.#length;
  }

  /**
   * Copies `bytes` to the end.
   *
   * @param bytes the bytes to append; not kept
   */
  append(bytes: Uint8Array): void {
    const needed = this.#length + bytes.byteLength;
    const buffer = this.#buffer === undefined || needed > this.#buffer.byteLength
      ? grow(this.#buffer, needed)
      : this.#buffer;
    new Uint8Array(buffer, this.#length, bytes.byteLength).set(bytes);
    this.#buffer = buffer;
    this.#length = needed;
  }

  /** A view of the content; valid until the next `append()` or `release()`. */
  bytes(): Uint8Array {
    return this.#buffer === undefined
      ? new Uint8Array()
      : new Uint8Array(this.#buffer, 0, this.#length);
  }

  /** Frees the memory now (views from `bytes()` become empty) and empties the buffer. */
  release(): void {
    // Detaching frees the backing store at once; the GC would take its time.
    if (this.#buffer !== undefined) transferBuffer(this.#buffer, 0);
    this.#buffer = undefined;
    this.#length = 0;
  }
}

/** A buffer of at least `needed` bytes holding the contents of `buffer` (which is freed). */
function grow(buffer: ArrayBuffer | undefined, needed: number): ArrayBuffer {
  const capacity = Math.max(needed, (buffer?.byteLength ?? 0) * 2, INITIAL_CAPACITY);
  if (buffer === undefined) return new ArrayBuffer(capacity);
  if (buffer.resizable && needed <= buffer.maxByteLength) {
    buffer.resize(Math.min(capacity, buffer.maxByteLength));
    return buffer;
  }
  if (!buffer.resizable && capacity >= RESERVE_FROM_BYTES) {
    const reserved = reserve(capacity);
    if (reserved !== undefined) {
      new Uint8Array(reserved).set(new Uint8Array(buffer));
      transferBuffer(buffer, 0);
      return reserved;
    }
  }
  // Moves the bytes into a larger plain buffer and frees the old one at once.
  return transferBuffer(buffer, capacity);
}

/**
 * `buffer.transferToFixedLength(length)`: its bytes in a buffer of
 * `length`, `buffer` detached (its memory freed now). Node 20 lacks the
 * method: there the bytes are copied and the GC frees the old buffer.
 */
function transferBuffer(buffer: ArrayBuffer, length: number): ArrayBuffer {
  if (typeof buffer.transferToFixedLength === "function") {
    return buffer.transferToFixedLength(length);
  }
  const moved = new ArrayBuffer(length);
  new Uint8Array(moved).set(new Uint8Array(buffer, 0, Math.min(length, buffer.byteLength)));
  return moved;
}

/** A resizable buffer of `capacity` bytes that can grow in place, if address space allows. */
function reserve(capacity: number): ArrayBuffer | undefined {
  if (capacity > RESERVED_BYTES) return undefined;
  try {
    const reserved = new ArrayBuffer(0, { maxByteLength: RESERVED_BYTES });
    reserved.resize(capacity);
    return reserved;
  } catch {
    // No address space to reserve (a `ulimit -v`): plain buffers work too.
    return undefined;
  }
}
