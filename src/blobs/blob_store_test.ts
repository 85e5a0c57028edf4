import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { join } from "node:path";
import fc from "fast-check";
import { textOfAbout } from "../testing/arbitrary_text.ts";
import { withTestSeed } from "../testing/seed.ts";
import { blobRefsIn } from "./blob_ref.ts";
import { BLOB_TEMP_PREFIX, BlobStore } from "./blob_store.ts";
import { collectBlobGarbage } from "./collect_blob_garbage.ts";
import { readBlobPage } from "./read_blob_page.ts";
import { searchBlob } from "./search_blob.ts";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function withStore(body: (store: BlobStore, dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "spillway_blobs_" });
  try {
    await body(new BlobStore(join(dir, "blobs")), join(dir, "blobs"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const entries = async (dir: string) =>
  (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();

Deno.test("BlobStore.put() stores the UTF-8 bytes under their SHA-256, once, with no temporary file left", () =>
  withStore(async (store, dir) => {
    // Past one encoding slice, a pair across the slice edge, and a lone surrogate.
    const text = "x".repeat((1 << 20) - 1) + "😀" + "\uD800 tail";
    const bytes = Buffer.from(text, "utf8");
    const blob = await store.put(text);
    assert.equal(blob.ref, `sha256:${sha256(bytes)}`);
    assert.equal(blob.bytes, bytes.length);
    assert.deepEqual(await Deno.readFile(blob.path), new Uint8Array(bytes));
    const again = await store.put(text);
    assert.deepEqual(again, blob);
    assert.deepEqual(await entries(dir), [sha256(bytes)]);
  }));

Deno.test("BlobWriter streams chunks to the same blob put() makes, and abort() leaves nothing", () =>
  withStore(async (store, dir) => {
    const writer = await store.writer();
    for (const part of ["one ", "two ", "three"]) {
      await writer.write(new TextEncoder().encode(part));
    }
    assert.equal(writer.bytes, 13);
    const streamed = await writer.finish();
    assert.deepEqual(await store.put("one two three"), streamed);
    const dropped = await store.writer();
    await dropped.write(new Uint8Array([1, 2, 3]));
    await dropped.abort();
    assert.deepEqual(await entries(dir), [streamed.ref.slice(7)]);
    assert.equal(await store.stat(`sha256:${"0".repeat(64)}`), undefined);
  }));

Deno.test("BlobStore.putHashed() stores bytes under the reference their caller computed, without hashing them again", () =>
  withStore(async (store, dir) => {
    const bytes = new TextEncoder().encode("a decoded image");
    const ref = `sha256:${sha256(bytes)}` as const;
    const blob = await store.putHashed(bytes, ref);
    assert.deepEqual(blob, { ref, bytes: bytes.length, path: store.path(ref) });
    assert.deepEqual(await Deno.readFile(blob.path), bytes);
    assert.deepEqual(await store.putHashed(bytes, ref), blob);
    // The reference is the caller's word: a name that is not the bytes' hash
    // is taken as given, which shows that the store hashed nothing.
    const trusted = `sha256:${"ab".repeat(32)}` as const;
    assert.equal((await store.putHashed(bytes, trusted)).path, store.path(trusted));
    assert.deepEqual(await entries(dir), [sha256(bytes), "ab".repeat(32)].sort());
  }));

Deno.test("readBlobPage() pages tile the blob exactly, each page exactly its bytes (property)", () =>
  withStore(async (store) => {
    const runs = 60;
    let movedEdges = 0;
    await withTestSeed(async (seed) => {
      const cases = fc.sample(
        fc.record({
          generated: fc.integer({ min: 0, max: 200_000 }).chain(textOfAbout),
          pages: fc.integer({ min: 1, max: 120 }),
          jitter: fc.integer({ min: 0, max: 7 }),
        }),
        { seed, numRuns: runs },
      );
      for (const { generated: { text }, pages, jitter } of cases) {
        const bytes = new Uint8Array(Buffer.from(text, "utf8"));
        // About `pages` pages, of a length that rarely falls on a character start.
        const page = Math.max(1, Math.ceil(bytes.length / pages) + jitter);
        const { ref } = await store.put(text);
        const parts: Uint8Array[] = [];
        for (let offset = 0; offset < bytes.length || offset === 0; offset += page) {
          const read = await readBlobPage(store, ref, offset, page);
          assert.ok(read !== undefined);
          const pageBytes = new Uint8Array(Buffer.from(read.text, "utf8"));
          assert.deepEqual(
            pageBytes,
            bytes.subarray(read.start, read.end),
            "page is not its bytes",
          );
          assert.ok(read.start <= offset && offset - read.start <= 3);
          if (read.start !== Math.min(offset, bytes.length)) movedEdges++;
          if (parts.length > 0) {
            const previous = parts.reduce((n, p) => n + p.length, 0);
            assert.equal(read.start, previous, "pages do not join up");
          }
          parts.push(pageBytes);
          if (bytes.length === 0) break;
        }
        assert.deepEqual(new Uint8Array(Buffer.concat(parts)), bytes);
      }
    });
    console.log(`readBlobPage property: ${runs} blobs paged, ${movedEdges} page edges moved back`);
    assert.ok(movedEdges >= 20, `only ${movedEdges} page edges moved back to a character start`);
  }));

Deno.test("readBlobPage() clamps at the end and reports a missing blob", () =>
  withStore(async (store) => {
    const { ref } = await store.put("abc");
    assert.deepEqual(await readBlobPage(store, ref, 1, 100), {
      text: "bc",
      start: 1,
      end: 3,
      size: 3,
    });
    assert.deepEqual(await readBlobPage(store, ref, 10, 5), {
      text: "",
      start: 3,
      end: 3,
      size: 3,
    });
    assert.equal(await readBlobPage(store, `sha256:${"1".repeat(64)}`, 0, 1), undefined);
    await assert.rejects(() => readBlobPage(store, ref, -1, 1), RangeError);
  }));

Deno.test("readBlobPage() keeps a byte-order mark that starts a page: it is part of the text", () =>
  withStore(async (store) => {
    // U+FEFF is 3 bytes (EF BB BF); a decoder left at its default drops it
    // at the start of what it decodes, and the page would miss its bytes.
    const { ref } = await store.put("ab\uFEFFcd");
    assert.deepEqual(await readBlobPage(store, ref, 2, 4), {
      text: "\uFEFFc",
      start: 2,
      end: 6,
      size: 7,
    });
    assert.equal((await readBlobPage(store, ref, 0, 7))?.text, "ab\uFEFFcd");
  }));

Deno.test("searchBlob() counts a byte-order mark that starts the blob in the offsets after it", () =>
  withStore(async (store) => {
    const { ref } = await store.put("\uFEFFfirst\nsecond\n");
    const found = await searchBlob(store, ref, /first|second/);
    assert.deepEqual(found?.matches, [
      { offset: 0, line: "\uFEFFfirst" },
      { offset: 9, line: "second" },
    ]);
    assert.equal((await readBlobPage(store, ref, 9, 6))?.text, "second");
  }));

Deno.test("searchBlob() finds lines with the byte offsets they start at, across chunks", () =>
  withStore(async (store) => {
    const lines = Array.from(
      { length: 60_000 },
      (_, i) => i % 7919 === 0 ? `FAIL é ${i}` : `ok ${i} 😀`,
    );
    const text = lines.join("\n");
    const { ref } = await store.put(text);
    const found = await searchBlob(store, ref, /^FAIL/);
    assert.ok(found !== undefined && !found.stopped);
    assert.equal(found.matches.length, 8);
    for (const match of found.matches) {
      const page = await readBlobPage(store, ref, match.offset, Buffer.byteLength(match.line));
      assert.equal(page?.text, match.line);
    }
    const capped = await searchBlob(store, ref, /ok/, { maxMatches: 5 });
    assert.equal(capped?.matches.length, 5);
    assert.equal(capped?.stopped, true);
  }));

Deno.test("collectBlobGarbage() removes unreferenced blobs past the grace period and stale temporary files", () =>
  withStore(async (store, dir) => {
    const kept = await store.put("kept");
    const young = await store.put("young");
    const old = await store.put("old");
    const hourAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await Deno.utime(kept.path, hourAgo, hourAgo);
    await Deno.utime(old.path, hourAgo, hourAgo);
    const staleTemp = join(dir, `${BLOB_TEMP_PREFIX}crashed`);
    await Deno.writeTextFile(staleTemp, "half a blob");
    await Deno.utime(staleTemp, hourAgo, hourAgo);
    const liveTemp = join(dir, `${BLOB_TEMP_PREFIX}writing`);
    await Deno.writeTextFile(liveTemp, "being written");
    const referenced = new Set(blobRefsIn(`... ref="${kept.ref}" ...`));
    const dry = await collectBlobGarbage(store, referenced, { dryRun: true });
    assert.deepEqual(dry.removed.map((b) => b.ref), [old.ref]);
    assert.equal((await entries(dir)).length, 5);
    const garbage = await collectBlobGarbage(store, referenced);
    assert.deepEqual(garbage.removed.map((b) => b.ref), [old.ref]);
    assert.equal(garbage.kept, 2);
    assert.equal(garbage.unfinished, 1);
    assert.deepEqual(
      await entries(dir),
      [`${BLOB_TEMP_PREFIX}writing`, kept.ref.slice(7), young.ref.slice(7)].sort(),
    );
  }));

Deno.test("a blob reused by put() is touched, so a collection right after keeps it", () =>
  withStore(async (store) => {
    const blob = await store.put("again");
    const hourAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await Deno.utime(blob.path, hourAgo, hourAgo);
    await store.put("again");
    const garbage = await collectBlobGarbage(store, new Set());
    assert.equal(garbage.removed.length, 0);
  }));
