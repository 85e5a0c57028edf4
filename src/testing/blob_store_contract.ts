/**
 * The contract every blob store passes (files, PostgreSQL): what the
 * execution service relies on when it spills an output or keeps a payload,
 * what `read_tool_output` relies on when it pages and searches one, and
 * what `conversation gc` relies on when it collects. Each backend's test
 * file calls {@linkcode defineBlobStoreContract} with a factory.
 *
 * @module
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import fc from "fast-check";
import type { BlobRef } from "../blobs/blob_ref.ts";
import type { BlobStore } from "../blobs/blob_store.ts";
import { collectBlobGarbage } from "../blobs/collect_blob_garbage.ts";
import { readBlobPage } from "../blobs/read_blob_page.ts";
import { searchBlob } from "../blobs/search_blob.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import { textOfAbout } from "./arbitrary_text.ts";
import { withTestSeed } from "./seed.ts";

/** A fresh, empty store, what a test may do to it from outside, and how to remove it. */
export interface BlobStoreUnderTest {
  /** The store, with no blobs yet. */
  readonly store: BlobStore;
  /** Makes blob `ref` look last written or reused `ms` milliseconds ago. */
  age(ref: BlobRef, ms: number): Promise<void>;
  /** Changes one stored byte of blob `ref`, as a damaged disk would. */
  damage(ref: BlobRef): Promise<void>;
  /** Leaves what a write that never finished (a crash) leaves, written `ms` ago. */
  leaveUnfinished(ms: number): Promise<void>;
  /** Removes whatever the store left behind. */
  cleanup(): Promise<void>;
}

const sha256 = (bytes: Uint8Array): BlobRef =>
  `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

const HOUR = 60 * 60 * 1000;

/** Reads blob `ref` whole through its chunks. */
async function whole(store: BlobStore, ref: BlobRef): Promise<Uint8Array> {
  const chunks = await store.chunks(ref);
  assert.ok(chunks !== undefined, `no blob ${ref}`);
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk.slice());
  return new Uint8Array(Buffer.concat(parts));
}

/**
 * Registers the blob store contract as `Deno.test` cases named `"<name>: …"`.
 *
 * @param name the backend's name, e.g. `"FileBlobStore"`
 * @param makeStore creates a fresh, empty store per test
 */
export function defineBlobStoreContract(
  name: string,
  makeStore: () => Promise<BlobStoreUnderTest>,
): void {
  const test = (what: string, body: (under: BlobStoreUnderTest) => Promise<void>) =>
    Deno.test(`${name}: ${what}`, async () => {
      const under = await makeStore();
      try {
        await body(under);
      } finally {
        await under.cleanup();
      }
    });

  test("put() stores the UTF-8 bytes under their SHA-256, once", async ({ store }) => {
    // Past one encoding slice and one chunk, a pair across the slice edge, a lone surrogate.
    const text = "x".repeat((1 << 20) - 1) + "😀" + "\uD800 tail" + "y".repeat(1 << 20);
    const bytes = new Uint8Array(Buffer.from(text, "utf8"));
    const blob = await store.put(text);
    assert.deepEqual(blob, { ref: sha256(bytes), bytes: bytes.length });
    assert.deepEqual(await whole(store, blob.ref), bytes);
    assert.deepEqual(await store.put(text), blob);
    assert.deepEqual((await store.list()).map((b) => [b.ref, b.bytes]), [[blob.ref, blob.bytes]]);
    assert.deepEqual(await store.stat(blob.ref), blob);
    assert.equal(await store.stat(`sha256:${"0".repeat(64)}`), undefined);
    assert.equal(await store.chunks(`sha256:${"0".repeat(64)}`), undefined);
    assert.ok(store.describe(blob.ref).includes(blob.ref.slice(7)), store.describe(blob.ref));
  });

  test("an empty blob is a blob", async ({ store }) => {
    const blob = await store.put("");
    assert.deepEqual(blob, { ref: sha256(new Uint8Array()), bytes: 0 });
    assert.deepEqual(await whole(store, blob.ref), new Uint8Array());
    assert.deepEqual(await store.readRange(blob.ref, 0, 10), { bytes: new Uint8Array(), size: 0 });
  });

  test("a writer streams chunks to the blob put() makes; abort() leaves nothing", async ({ store }) => {
    const writer = await store.writer();
    for (const part of ["one ", "two ", "three"]) {
      await writer.write(new TextEncoder().encode(part));
    }
    assert.equal(writer.bytes, 13);
    const streamed = await writer.finish();
    assert.deepEqual(
      { ref: streamed.ref, bytes: streamed.bytes },
      await store.put("one two three"),
    );
    const dropped = await store.writer();
    await dropped.write(new Uint8Array([1, 2, 3]));
    await dropped.abort();
    await dropped.abort();
    assert.deepEqual((await store.list()).map((b) => b.ref), [streamed.ref]);
  });

  test("putHashed() stores bytes under the reference the caller computed", async ({ store }) => {
    const bytes = new TextEncoder().encode("a decoded image");
    const ref = sha256(bytes);
    const blob = await store.putHashed(bytes, ref);
    assert.deepEqual(blob, { ref, bytes: bytes.length });
    assert.deepEqual(await store.putHashed(bytes, ref), blob);
    assert.deepEqual(await whole(store, ref), bytes);
  });

  test("readRange() reads exactly the bytes asked for, clamped at the end", async ({ store }) => {
    // Several chunks of a store that chunks (1 MiB), ranges across their edges.
    const bytes = new Uint8Array(3 * (1 << 20) + 17).map((_, i) => (i * 7) % 251);
    const ref = sha256(bytes);
    await store.putHashed(bytes, ref);
    for (const [start, end] of [[0, 5], [(1 << 20) - 3, (1 << 20) + 3], [100, 3 << 20], [0, 1e9]]) {
      const read = await store.readRange(ref, start!, end!);
      assert.equal(read?.size, bytes.length);
      assert.deepEqual(read?.bytes, bytes.subarray(start, Math.min(end!, bytes.length)));
    }
    assert.deepEqual(await store.readRange(ref, bytes.length + 5, bytes.length + 9), {
      bytes: new Uint8Array(),
      size: bytes.length,
    });
    assert.equal(await store.readRange(`sha256:${"1".repeat(64)}`, 0, 1), undefined);
  });

  test("readBlobPage() pages tile the blob exactly, each page exactly its bytes (property)", async ({ store }) => {
    const runs = 40;
    let movedEdges = 0;
    await withTestSeed(async (seed) => {
      const cases = fc.sample(
        fc.record({
          generated: fc.integer({ min: 0, max: 200_000 }).chain(textOfAbout),
          pages: fc.integer({ min: 1, max: 60 }),
          jitter: fc.integer({ min: 0, max: 7 }),
        }),
        { seed, numRuns: runs },
      );
      for (const { generated: { text }, pages, jitter } of cases) {
        const bytes = new Uint8Array(Buffer.from(text, "utf8"));
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
          const previous = parts.reduce((n, p) => n + p.length, 0);
          if (parts.length > 0) assert.equal(read.start, previous, "pages do not join up");
          parts.push(pageBytes);
          if (bytes.length === 0) break;
        }
        assert.deepEqual(new Uint8Array(Buffer.concat(parts)), bytes);
      }
    });
    console.log(`readBlobPage property: ${runs} blobs paged, ${movedEdges} page edges moved back`);
    assert.ok(movedEdges >= 15, `only ${movedEdges} page edges moved back to a character start`);
  });

  test("readBlobPage() clamps, keeps a byte-order mark, and reports a missing blob", async ({ store }) => {
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
    const bom = await store.put("ab\uFEFFcd");
    assert.deepEqual(await readBlobPage(store, bom.ref, 2, 4), {
      text: "\uFEFFc",
      start: 2,
      end: 6,
      size: 7,
    });
  });

  test("searchBlob() finds lines with the byte offsets they start at, across chunks", async ({ store }) => {
    const lines = Array.from(
      { length: 120_000 },
      (_, i) => i % 7919 === 0 ? `FAIL é ${i}` : `ok ${i} 😀`,
    );
    const { ref } = await store.put(lines.join("\n"));
    const found = await searchBlob(store, ref, /^FAIL/);
    assert.ok(found !== undefined && !found.stopped);
    assert.equal(found.matches.length, 16);
    for (const match of found.matches) {
      const page = await readBlobPage(store, ref, match.offset, Buffer.byteLength(match.line));
      assert.equal(page?.text, match.line);
    }
    const capped = await searchBlob(store, ref, /ok/, { maxMatches: 5 });
    assert.equal(capped?.matches.length, 5);
    assert.equal(capped?.stopped, true);
    const bom = await store.put("\uFEFFfirst\nsecond\n");
    assert.deepEqual((await searchBlob(store, bom.ref, /first|second/))?.matches, [
      { offset: 0, line: "\uFEFFfirst" },
      { offset: 9, line: "second" },
    ]);
  });

  test("a damaged blob is refused when read whole, never handed out as it is", async (under) => {
    const { store } = under;
    const text = "line\n".repeat(300_000);
    const { ref } = await store.put(text);
    await under.damage(ref);
    await assert.rejects(whole(store, ref), (error: unknown) => {
      assert.ok(error instanceof SpillwayError, String(error));
      assert.equal(error.code, "store_failed");
      assert.match(error.message, new RegExp(`^stored output ${ref} is damaged: `));
      return true;
    });
    await assert.rejects(searchBlob(store, ref, /nothing/), /is damaged/);
  });

  test("collect() removes unreferenced blobs written before keepSince and unfinished writes", async (under) => {
    const { store } = under;
    const kept = await store.put("kept");
    const young = await store.put("young");
    const old = await store.put("old");
    await under.age(kept.ref, 2 * HOUR);
    await under.age(old.ref, 2 * HOUR);
    await under.leaveUnfinished(2 * HOUR);
    const referenced = new Set([kept.ref]);
    const dry = await collectBlobGarbage(store, referenced, { dryRun: true });
    assert.deepEqual(dry, { removed: [{ ref: old.ref, bytes: 3 }], kept: 2, unfinished: 1 });
    assert.equal((await store.list()).length, 3);
    const garbage = await collectBlobGarbage(store, referenced);
    assert.deepEqual(garbage, { removed: [{ ref: old.ref, bytes: 3 }], kept: 2, unfinished: 1 });
    assert.deepEqual((await store.list()).map((b) => b.ref), [kept.ref, young.ref].sort());
    assert.equal(await store.stat(old.ref), undefined);
    assert.deepEqual(await collectBlobGarbage(store, referenced), {
      removed: [],
      kept: 2,
      unfinished: 0,
    });
  });

  test("a blob stored again is touched, so a collection right after keeps it", async (under) => {
    const { store } = under;
    const blob = await store.put("again");
    await under.age(blob.ref, 2 * HOUR);
    await store.put("again");
    assert.equal((await collectBlobGarbage(store, new Set())).removed.length, 0);
    await under.age(blob.ref, 2 * HOUR);
    await store.putHashed(new TextEncoder().encode("again"), blob.ref);
    assert.equal((await collectBlobGarbage(store, new Set())).removed.length, 0);
    const modified = (await store.list())[0]?.modified.getTime() ?? 0;
    assert.ok(Date.now() - modified < HOUR, `modified ${new Date(modified).toISOString()}`);
  });
}
