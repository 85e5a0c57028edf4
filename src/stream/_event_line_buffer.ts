/**
 * Private to the file store: serializes a batch of events as JSON lines
 * straight into bytes, in a buffer reused from one append to the next.
 *
 * A commit appends ~1,000 events of ~2 KB at once. Joining their JSON lines
 * into one string and encoding that allocated the batch three times over
 * (the lines, the joined 2 MiB string, the encoded bytes), with every line
 * alive until the join: garbage the collector had to copy while the batch's
 * calls were still parked. Here each line is encoded as soon as it is
 * stringified (so it dies young), into bytes that are allocated once and
 * kept for the next append.
 *
 * @module
 */

import type { StreamEvent } from "./events.ts";

const NEWLINE = 10;
const INITIAL_BYTES = 64 * 1024;
/** Larger buffers are not kept for reuse: one huge append must not pin its size for good. */
const MAX_KEPT_BYTES = 8 * 1024 * 1024;

const encoder = new TextEncoder();

/** A growable byte buffer that events are serialized into, one batch at a time. */
export class EventLineBuffer {
  #bytes: Uint8Array;

  /** A buffer of `initialBytes` (at least 1), grown as the batches need. */
  constructor(initialBytes = INITIAL_BYTES) {
    this.#bytes = new Uint8Array(Math.max(1, initialBytes));
  }

  /**
   * Serializes `events` as JSON lines (`JSON.stringify` of each, `\n`-terminated;
   * it escapes lone surrogates, so every string survives the round trip).
   *
   * @returns a view of this buffer: valid until the buffer is used again
   */
  encode(events: readonly StreamEvent[]): Uint8Array {
    let end = 0;
    for (const event of events) {
      let rest = JSON.stringify(event);
      // Room for the line if it is ASCII; a line with wider characters
      // grows the buffer once more for what did not fit (at most 3 bytes per
      // UTF-16 code unit; encodeInto never splits a character).
      this.#reserve(end, rest.length + 1);
      for (;;) {
        const { read, written } = encoder.encodeInto(rest, this.#bytes.subarray(end));
        end += written;
        if (read === rest.length) break;
        rest = rest.slice(read);
        this.#reserve(end, rest.length * 3 + 1);
      }
      // Wide characters may have taken the byte kept for the newline.
      this.#reserve(end, 1);
      this.#bytes[end++] = NEWLINE;
    }
    return this.#bytes.subarray(0, end);
  }

  /** Whether the buffer is small enough to keep for the next append. */
  get reusable(): boolean {
    return this.#bytes.length <= MAX_KEPT_BYTES;
  }

  /** Makes room for `more` bytes after the first `used`, keeping those. */
  #reserve(used: number, more: number): void {
    if (this.#bytes.length - used >= more) return;
    const grown = new Uint8Array(Math.max(used + more, this.#bytes.length * 2));
    grown.set(this.#bytes.subarray(0, used));
    this.#bytes = grown;
  }
}

/** The buffer no append is using; appends running at once take buffers of their own. */
let idle: EventLineBuffer | undefined;

/**
 * Serializes `events` into a buffer taken for the duration of `use`, which
 * gets the bytes (empty for no events) and must be done with them when its
 * promise settles; the buffer is then kept for the next append.
 */
export async function withEventLines<T>(
  events: readonly StreamEvent[],
  use: (bytes: Uint8Array) => Promise<T>,
): Promise<T> {
  const buffer = idle ?? new EventLineBuffer();
  idle = undefined;
  try {
    return await use(buffer.encode(events));
  } finally {
    if (buffer.reusable) idle = buffer;
  }
}
