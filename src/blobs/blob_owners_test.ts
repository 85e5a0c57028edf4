import assert from "node:assert/strict";
import { BlobOwners } from "./blob_owners.ts";
import { collectBlobGarbage } from "./collect_blob_garbage.ts";
import { FileBlobStore } from "./file_blob_store.ts";

Deno.test("BlobOwners: one blob, a record per owner, listed per owner and never as an output", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new FileBlobStore(dir);
    const owners = new BlobOwners(store);
    const shared = await store.put("the same output");
    const own = await store.put("alice's alone");
    await owners.add("alice", shared.ref);
    await owners.add("bob", shared.ref);
    await owners.add("alice", own.ref);
    await owners.add("alice", own.ref);
    assert.ok(await owners.owns("alice", own.ref));
    assert.ok(!(await owners.owns("bob", own.ref)));
    assert.ok(!(await owners.owns("carol", shared.ref)));
    // A name that merely starts another's is another owner.
    assert.ok(!(await owners.owns("ali", own.ref)));
    const refs = async (owner: string) => (await owners.list(owner)).map((blob) => blob.ref).sort();
    assert.deepEqual(await refs("alice"), [own.ref, shared.ref].sort());
    assert.deepEqual(await refs("bob"), [shared.ref]);
    assert.deepEqual(await refs("carol"), []);
    // Two outputs, three records: the bytes are stored once.
    assert.equal((await store.list()).length, 5);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("conversation gc keeps the records of the outputs it keeps and removes the others'", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new FileBlobStore(dir);
    const owners = new BlobOwners(store);
    const kept = await store.put("still referenced");
    const dropped = await store.put("forgotten");
    await owners.add("alice", kept.ref);
    await owners.add("bob", kept.ref);
    await owners.add("alice", dropped.ref);
    const later = new Date(Date.now() + 2 * 60 * 60 * 1000);
    const garbage = await collectBlobGarbage(store, new Set([kept.ref]), { now: later });
    // The dropped output and its one record.
    assert.equal(garbage.removed.length, 2);
    assert.equal(garbage.kept, 3);
    assert.ok(await owners.owns("alice", kept.ref));
    assert.ok(await owners.owns("bob", kept.ref));
    assert.ok(!(await owners.owns("alice", dropped.ref)));
    assert.deepEqual((await owners.list("alice")).map((blob) => blob.ref), [kept.ref]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
