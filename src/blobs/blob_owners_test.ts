import assert from "node:assert/strict";
import fc from "fast-check";
import { withTestSeed } from "../testing/seed.ts";
import type { BlobRef } from "./blob_ref.ts";
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

Deno.test("BlobOwners property: a client owns exactly what it was recorded to produce, and lists exactly that", async () => {
  const dir = await Deno.makeTempDir();
  const reached = { shared: 0, exclusive: 0, refused: 0, again: 0 };
  try {
    const store = new FileBlobStore(dir);
    const clients = ["default", "alice", "bob", "al"] as const;
    const step = fc.record({ client: fc.nat(clients.length - 1), output: fc.nat(5) });
    let round = 0;
    await withTestSeed((seed) =>
      fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
          // Outputs of this run alone: the store is shared by every run.
          round += 1;
          const outputs = Array.from({ length: 6 }, (_, n) => `output ${n} of run ${round}`);
          const refs = await Promise.all(outputs.map(async (text) => (await store.put(text)).ref));
          const owners = new BlobOwners(store);
          const model = new Map<string, Set<number>>(clients.map((client) => [client, new Set()]));
          for (const { client, output } of steps) {
            const name = clients[client] as string;
            if (model.get(name)?.has(output)) reached.again += 1;
            model.get(name)?.add(output);
            await owners.add(name, refs[output] as BlobRef);
          }
          for (const [name, owned] of model) {
            for (const [n, ref] of refs.entries()) {
              const holders = [...model.values()].filter((set) => set.has(n)).length;
              if (!owned.has(n)) reached.refused += 1;
              else if (holders > 1) reached.shared += 1;
              else reached.exclusive += 1;
              assert.equal(await owners.owns(name, ref), owned.has(n), `${name} ${n}`);
            }
            const listed = (await owners.list(name)).map((blob) => blob.ref)
              .filter((ref) => refs.includes(ref));
            assert.deepEqual(listed.sort(), [...owned].map((n) => refs[n] as string).sort());
          }
        }),
        { seed, numRuns: 25 },
      )
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  console.log(`BlobOwners property: ${JSON.stringify(reached)}`);
  // Seen over 11 seeds: shared 44-90, exclusive 46-68, refused 449-501, again 13-32.
  const least = { shared: 10, exclusive: 10, refused: 100, again: 3 };
  for (const [branch, count] of Object.entries(reached)) {
    assert.ok(count >= least[branch as keyof typeof least], `only ${count} ${branch} checks`);
  }
});
