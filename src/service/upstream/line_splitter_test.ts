import assert from "node:assert/strict";
import fc from "fast-check";
import { withTestSeed } from "../../testing/seed.ts";
import { LineSplitter } from "./line_splitter.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Feeds `bytes` cut at `cuts` and returns every line, decoded strictly. */
function splitAt(bytes: Uint8Array, cuts: readonly number[]): { lines: string[]; rest: string } {
  const splitter = new LineSplitter();
  const lines: string[] = [];
  let start = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    splitter.push(bytes.subarray(start, cut), (line) => lines.push(decoder.decode(line)));
    start = cut;
  }
  splitter.push(bytes.subarray(start), (line) => lines.push(decoder.decode(line)));
  return { lines, rest: decoder.decode(splitter.end()) };
}

const NEWLINE = 0x0a;

/** Whether `byte` continues a multi-byte UTF-8 character (a cut before it splits one). */
function isContinuationByte(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/** How many newlines each chunk holds when `bytes` is cut at `cuts`. */
function chunkLines(bytes: Uint8Array, cuts: readonly number[]): number[] {
  const edges = [0, ...[...new Set(cuts)].sort((a, b) => a - b), bytes.byteLength];
  return edges.slice(1).map((end, i) =>
    bytes.subarray(edges[i], end).filter((byte) => byte === NEWLINE).length
  );
}

Deno.test("LineSplitter yields the same lines wherever the chunks are cut", async () => {
  const runs = 500;
  const reached = { lineAcrossChunks: 0, characterSplit: 0, manyLinesInAChunk: 0 };
  const message = fc.string({ unit: "binary" }).map((s) =>
    s.replaceAll("\n", " ").replaceAll("\r", " ")
  );
  await withTestSeed((seed) => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (messages, rawCuts) => {
          const bytes = encoder.encode(messages.map((m) => `${m}\n`).join(""));
          const cuts = rawCuts.map((cut) => cut % (bytes.byteLength + 1));
          const inner = cuts.filter((cut) => cut > 0 && cut < bytes.byteLength);
          // A cut not right after a newline leaves part of a line pending.
          if (inner.some((cut) => bytes[cut - 1] !== NEWLINE)) reached.lineAcrossChunks++;
          if (inner.some((cut) => isContinuationByte(bytes[cut]))) reached.characterSplit++;
          if (chunkLines(bytes, cuts).some((lines) => lines >= 2)) reached.manyLinesInAChunk++;
          const { lines, rest } = splitAt(bytes, cuts);
          assert.deepEqual(lines, messages);
          assert.equal(rest, "");
        },
      ),
      { seed, numRuns: runs },
    );
  });
  for (const [branch, count] of Object.entries(reached)) {
    assert.ok(count >= runs / 2, `only ${count} of ${runs} cases reached ${branch}`);
  }
});

Deno.test("LineSplitter keeps a multi-byte character whole when a chunk boundary splits it", () => {
  const text = "ä€😀 and 𝄞";
  const bytes = encoder.encode(`${text}\n`);
  for (let cut = 0; cut <= bytes.byteLength; cut++) {
    for (let second = cut; second <= bytes.byteLength; second++) {
      assert.deepEqual(splitAt(bytes, [cut, second]).lines, [text]);
    }
  }
});

Deno.test("LineSplitter returns every line of a chunk holding many messages", () => {
  const messages = Array.from(
    { length: 10_000 },
    (_, i) => `{"jsonrpc":"2.0","id":${i},"result":{}}`,
  );
  const splitter = new LineSplitter();
  const lines: string[] = [];
  splitter.push(
    encoder.encode(messages.map((m) => `${m}\n`).join("")),
    (line) => lines.push(decoder.decode(line)),
  );
  assert.deepEqual(lines, messages);
  assert.equal(splitter.pendingBytes, 0);
});

Deno.test("LineSplitter removes a trailing CR and keeps inner ones", () => {
  const { lines } = splitAt(encoder.encode("a\r\nb\rc\n\r\n"), [2]);
  assert.deepEqual(lines, ["a", "b\rc", ""]);
});

Deno.test("LineSplitter.end() returns an unterminated last line once", () => {
  const splitter = new LineSplitter();
  const noLine = () => assert.fail("no line is complete");
  splitter.push(encoder.encode('{"a":'), noLine);
  splitter.push(encoder.encode("1}"), noLine);
  assert.equal(splitter.pendingBytes, 7);
  assert.equal(decoder.decode(splitter.end()), '{"a":1}');
  assert.equal(splitter.pendingBytes, 0);
  assert.equal(splitter.end().byteLength, 0);
});

Deno.test("LineSplitter frames a 100 MB line arriving in 64 KiB chunks, then frees it", () => {
  const size = 100 * 1024 * 1024;
  const bytes = new Uint8Array(size + 1).fill(0x61);
  bytes[0] = 0x7b; // "{"
  bytes[size - 1] = 0x7d; // "}"
  bytes[size] = 0x0a;
  const splitter = new LineSplitter();
  let kept: Uint8Array | undefined;
  const chunk = 64 * 1024;
  for (let offset = 0; offset < bytes.byteLength; offset += chunk) {
    splitter.push(bytes.subarray(offset, offset + chunk), (line) => {
      assert.equal(kept, undefined);
      assert.equal(line.byteLength, size);
      assert.equal(line[0], 0x7b);
      assert.equal(line[size - 1], 0x7d);
      assert.equal(line[size / 2], 0x61);
      kept = line;
    });
    if (kept === undefined) assert.equal(splitter.pendingBytes, Math.min(offset + chunk, size + 1));
  }
  assert.ok(kept !== undefined);
  // The line's buffer was released when the callback returned.
  assert.equal(kept.byteLength, 0);
  assert.equal(splitter.pendingBytes, 0);
});

Deno.test("LineSplitter does not touch the chunks it is given", () => {
  const chunks = ['{"a":', '1}\n{"b":2}\n{"c"', ":3}\n"].map((text) => encoder.encode(text));
  const splitter = new LineSplitter();
  const lines: string[] = [];
  for (const chunk of chunks) splitter.push(chunk, (line) => lines.push(decoder.decode(line)));
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
  assert.deepEqual(chunks.map((chunk) => decoder.decode(chunk)), [
    '{"a":',
    '1}\n{"b":2}\n{"c"',
    ":3}\n",
  ]);
});
