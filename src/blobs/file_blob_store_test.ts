import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { defineBlobStoreContract } from "../testing/blob_store_contract.ts";
import type { BlobRef } from "./blob_ref.ts";
import { BLOB_TEMP_PREFIX, FileBlobStore } from "./file_blob_store.ts";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

defineBlobStoreContract("FileBlobStore", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway_blobs_" });
  const store = new FileBlobStore(join(dir, "blobs"));
  const ago = (ms: number) => new Date(Date.now() - ms);
  return {
    store,
    age: (ref: BlobRef, ms: number) => Deno.utime(store.path(ref), ago(ms), ago(ms)),
    damage: async (ref: BlobRef) => {
      using file = await Deno.open(store.path(ref), { read: true, write: true });
      const byte = new Uint8Array(1);
      await file.seek(100, Deno.SeekMode.Start);
      await file.read(byte);
      await file.seek(100, Deno.SeekMode.Start);
      await file.write(new Uint8Array([byte[0]! ^ 1]));
    },
    leaveUnfinished: async (ms: number) => {
      await Deno.mkdir(store.dir, { recursive: true });
      const temp = join(store.dir, `${BLOB_TEMP_PREFIX}crashed`);
      await Deno.writeTextFile(temp, "half a blob");
      await Deno.utime(temp, ago(ms), ago(ms));
    },
    cleanup: () => Deno.remove(dir, { recursive: true }),
  };
});

async function withStore(
  body: (store: FileBlobStore, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "spillway_blobs_" });
  try {
    await body(new FileBlobStore(join(dir, "blobs")), join(dir, "blobs"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const entries = async (dir: string) =>
  (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();

Deno.test("FileBlobStore keeps each blob as <dir>/<hex>, mode 0600, no temporary file left", () =>
  withStore(async (store, dir) => {
    const bytes = Buffer.from("secret output", "utf8");
    const blob = await store.put("secret output");
    assert.deepEqual(await Deno.readFile(store.path(blob.ref)), new Uint8Array(bytes));
    assert.equal(store.describe(blob.ref), join(dir, sha256(bytes)));
    assert.deepEqual(await entries(dir), [sha256(bytes)]);
    if (Deno.build.os !== "windows") {
      assert.equal((await Deno.stat(store.path(blob.ref))).mode! & 0o777, 0o600);
      assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
    }
    const writer = await store.writer();
    assert.ok(writer.localPath?.startsWith(join(dir, BLOB_TEMP_PREFIX)));
    await writer.write(new TextEncoder().encode("x"));
    const finished = await writer.finish();
    assert.equal(finished.localPath, store.path(finished.ref));
  }));

Deno.test("FileBlobStore.putHashed() takes the caller's reference as given: it hashes nothing", () =>
  withStore(async (store, dir) => {
    const bytes = new TextEncoder().encode("a decoded image");
    // A name that is not the bytes' hash is taken as given, which shows that the store hashed nothing.
    const trusted = `sha256:${"ab".repeat(32)}` as const;
    assert.deepEqual(await store.putHashed(bytes, trusted), { ref: trusted, bytes: bytes.length });
    assert.deepEqual(await entries(dir), ["ab".repeat(32)]);
  }));
