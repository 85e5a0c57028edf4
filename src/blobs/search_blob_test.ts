import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { textOfAbout } from "../testing/arbitrary_text.ts";
import { withTestSeed } from "../testing/seed.ts";
import type { BlobRef } from "./blob_ref.ts";
import type { BlobStore } from "./blob_store.ts";
import { type BlobMatch, searchBlob } from "./search_blob.ts";

const REF: BlobRef = `sha256:${"0".repeat(64)}`;

/** A blob handed out in the given chunks (what a store's `chunks()` yields). */
function chunked(chunks: readonly Uint8Array[]): Pick<BlobStore, "stat" | "chunks"> {
  const bytes = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  return {
    stat: (ref) => Promise.resolve(ref === REF ? { ref, bytes } : undefined),
    chunks: (ref) =>
      Promise.resolve(
        ref !== REF ? undefined : (async function* () {
          // One buffer, refilled: a store may reuse a chunk once the next is asked for.
          // (A reduce, not Math.max(...lengths): 1-byte cuts make 200,000 arguments.)
          const buffer = new Uint8Array(chunks.reduce((max, c) => Math.max(max, c.length), 1));
          for (const chunk of chunks) {
            buffer.set(chunk);
            yield buffer.subarray(0, chunk.length);
          }
        })(),
      ),
  };
}

/** The lines of `text` that match, split the plain way. */
function expected(text: string, pattern: RegExp): BlobMatch[] {
  const matches: BlobMatch[] = [];
  let offset = 0;
  const lines = text.split("\n");
  for (const [i, line] of lines.entries()) {
    if (i === lines.length - 1 && line === "") break;
    if (pattern.test(line)) matches.push({ offset, line });
    offset += Buffer.byteLength(line, "utf8") + 1;
  }
  return matches;
}

Deno.test("searchBlob() finds what a plain line split finds, wherever chunks and slices end (property)", async () => {
  const reached = { chunkInsideCharacter: 0, lineAcrossChunks: 0, pastOneSlice: 0, stopped: 0 };
  await withTestSeed((seed) =>
    fc.assert(
      fc.asyncProperty(
        textOfAbout(3_000),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 200_000 }),
        fc.array(fc.integer({ min: 1, max: 90_000 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 30 }),
        async ({ text: words }, every, extra, cuts, maxMatches) => {
          // Lines of random text, every few of them marked, past one 64 KiB decode slice at times.
          const lines: string[] = [];
          for (let i = 0, bytes = 0; bytes < 3_000 + extra; i++) {
            const line = `${i % every === 0 ? "HIT " : ""}${i} ${words.slice(i % 50, i % 50 + 80)}`;
            lines.push(line);
            bytes += Buffer.byteLength(line) + 1;
          }
          const text = lines.join("\n") + (extra % 2 === 0 ? "\n" : "");
          const bytes = new Uint8Array(Buffer.from(text, "utf8"));
          // The same bytes the store holds (a lone surrogate was stored as U+FFFD).
          const stored = new TextDecoder().decode(bytes);
          const chunks: Uint8Array[] = [];
          for (let at = 0, i = 0; at < bytes.length; i++) {
            const end = Math.min(bytes.length, at + cuts[i % cuts.length]!);
            chunks.push(bytes.subarray(at, end));
            if (end < bytes.length && (bytes[end]! & 0xc0) === 0x80) reached.chunkInsideCharacter++;
            if (end < bytes.length && bytes[end - 1] !== 10) reached.lineAcrossChunks++;
            at = end;
          }
          if (chunks.some((chunk) => chunk.length > 64 * 1024)) reached.pastOneSlice++;
          const all = expected(stored, /^HIT /);
          const found = await searchBlob(chunked(chunks), REF, /^HIT /g, { maxMatches });
          assert.ok(found !== undefined);
          assert.equal(found.size, bytes.length);
          assert.deepEqual(found.matches, all.slice(0, maxMatches));
          assert.equal(found.stopped, all.length > maxMatches);
          if (found.stopped) reached.stopped++;
        },
      ),
      { seed, numRuns: 150 },
    )
  );
  console.log(`searchBlob property: ${JSON.stringify(reached)}`);
  for (const [branch, count] of Object.entries(reached)) {
    assert.ok(count >= 10, `only ${count} cases reached ${branch}`);
  }
});

Deno.test("searchBlob() searches a line longer than 1 Mi characters in pieces, offsets exact", async () => {
  const long = "é".repeat((1 << 20) + 10) + "NEEDLE";
  const text = `first\n${long}\nNEEDLE last\n`;
  const bytes = new Uint8Array(Buffer.from(text, "utf8"));
  const chunks = [bytes.subarray(0, 1 << 20), bytes.subarray(1 << 20)];
  const found = await searchBlob(chunked(chunks), REF, /NEEDLE|^é/, { maxLineChars: 3 });
  const pieceBytes = Buffer.byteLength("é".repeat(1 << 20));
  assert.deepEqual(found?.matches, [
    { offset: 6, line: "ééé…" },
    { offset: 6 + pieceBytes, line: "ééé…" },
    { offset: Buffer.byteLength(`first\n${long}\n`), line: "NEE…" },
  ]);
  // Exactly as many matches as allowed: all of them, and not "more".
  const three = await searchBlob(chunked(chunks), REF, /NEEDLE|^é/, { maxMatches: 3 });
  assert.equal(three?.matches.length, 3);
  assert.equal(three?.stopped, false);
  const two = await searchBlob(chunked(chunks), REF, /NEEDLE|^é/, { maxMatches: 2 });
  assert.deepEqual([two?.matches.length, two?.stopped], [2, true]);
  assert.equal(await searchBlob(chunked(chunks), `sha256:${"1".repeat(64)}`, /x/), undefined);
});
