import assert from "node:assert/strict";
import fc from "fast-check";
import { withTestSeed } from "../testing/seed.ts";
import type { StreamEvent } from "./events.ts";
import { EventLineBuffer, withEventLines } from "./_event_line_buffer.ts";
import { parseEventLine, serializeEvents } from "./_event_lines.ts";

const encoder = new TextEncoder();

/** What the buffer must write: every event's `JSON.stringify`, `\n`-terminated, in UTF-8. */
function expected(events: readonly StreamEvent[]): Uint8Array {
  return encoder.encode(serializeEvents(events));
}

function response(id: string, content: string): StreamEvent {
  return { type: "tool_call_response", id, content, is_error: false };
}

const events = fc.array(
  fc.record({
    id: fc.string({ maxLength: 8 }),
    // `binary` reaches lone surrogates (escaped by JSON.stringify) and 4-byte characters.
    content: fc.oneof(
      fc.string({ unit: "binary", maxLength: 300 }),
      fc.string({ unit: "grapheme", maxLength: 300 }),
      fc.string({ maxLength: 300 }),
    ),
  }).map(({ id, content }) => response(id, content)),
  { maxLength: 12 },
);

Deno.test("EventLineBuffer writes exactly the JSON lines of its events, whatever it started with", () =>
  withTestSeed((seed) => {
    let grown = 0;
    let wide = 0;
    fc.assert(
      fc.property(
        fc.array(events, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 2048 }),
        (batches, initialBytes) => {
          // One buffer for every batch: each view holds its own batch only.
          const buffer = new EventLineBuffer(initialBytes);
          for (const batch of batches) {
            const want = expected(batch);
            assert.deepEqual(buffer.encode(batch), want);
            if (want.length > initialBytes) grown++;
            if (want.length > serializeEvents(batch).length) wide++;
          }
        },
      ),
      { seed, numRuns: 300 },
    );
    assert.ok(grown >= 100, `only ${grown} batches grew the buffer`);
    assert.ok(wide >= 100, `only ${wide} batches held characters wider than one byte`);
  }));

Deno.test("EventLineBuffer grows again for what a line of wide characters did not fit", () => {
  // Room is made for the line as if it were ASCII: 4 bytes here, for 2 + 3 × 4 + 1 needed.
  const line = response("c", "🙂é€");
  const buffer = new EventLineBuffer(1);
  const bytes = buffer.encode([line, line]);
  assert.deepEqual(bytes, expected([line, line]));
  const text = new TextDecoder().decode(bytes);
  assert.deepEqual(text.split("\n").slice(0, -1).map(parseEventLine), [line, line]);
});

Deno.test("EventLineBuffer ends a line with its newline when wide characters took the room kept for it", () => {
  // "é" is one UTF-16 unit and 2 bytes: the line fills exactly the room made for it plus its newline.
  const line = response("c", "é");
  assert.deepEqual(new EventLineBuffer(1).encode([line]), expected([line]));
});

Deno.test("withEventLines() never hands a buffer in use to a second append", async () => {
  const first = [response("a", "x".repeat(1000))];
  const second = [response("b", "y".repeat(1000))];
  const { promise: secondEncoded, resolve } = Promise.withResolvers<void>();
  const firstDone = withEventLines(first, async (bytes) => {
    await secondEncoded; // the second append encodes while the first still writes
    assert.deepEqual(bytes, expected(first));
  });
  await withEventLines(second, (bytes) => {
    assert.deepEqual(bytes, expected(second));
    resolve();
    return Promise.resolve();
  });
  await firstDone;
  // A later append reuses a buffer: it still gets its own bytes only.
  await withEventLines([], (bytes) => Promise.resolve(assert.equal(bytes.length, 0)));
  await withEventLines(
    second,
    (bytes) => Promise.resolve(assert.deepEqual(bytes, expected(second))),
  );
});

Deno.test("withEventLines() gives the buffer back when the append fails", async () => {
  const batch = [response("a", "z".repeat(100))];
  await assert.rejects(
    withEventLines(batch, () => Promise.reject(new Error("disk full"))),
    /disk full/,
  );
  await withEventLines(batch, (bytes) => Promise.resolve(assert.deepEqual(bytes, expected(batch))));
});
