/**
 * Which client produced which stored output. Outputs are content
 * addressed: the same output of two clients is one blob, and must stay
 * readable by both and by no one else. So ownership is a record of its own
 * per client and output, kept in the same store as a tiny blob whose text
 * names both (`spillway: stored output sha256:… belongs to client alice`):
 * it is written durably before the call parks (as the output is), needs no
 * table or folder of its own, and every gateway sharing a database sees
 * it. Whether a client owns an output is whether its record exists
 * (`stat` of the record's hash); the outputs a client owns are the blobs
 * whose record for that client exists.
 *
 * `spillway conversation gc` keeps the records of the outputs it keeps
 * ({@linkcode BlobOwners.keepRecords}); a removed output's records go with it.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { BlobRef } from "./blob_ref.ts";
import type { BlobStore, StoredBlob } from "./blob_store.ts";

/** The most bytes an ownership record takes: a client name is at most 64 characters. */
const MAX_RECORD_BYTES = 256;

const RECORD =
  /^spillway: stored output (sha256:[0-9a-f]{64}) belongs to client ([A-Za-z0-9_-]{1,64})\n$/;

/** The text of the record saying `owner` produced `ref`. */
function recordText(owner: string, ref: BlobRef): string {
  return `spillway: stored output ${ref} belongs to client ${owner}\n`;
}

/** The reference the store gives `text` (the SHA-256 of its UTF-8 bytes). */
function refOf(text: string): BlobRef {
  return `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}

/**
 * The ownership records of one blob store.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileBlobStore } from "./file_blob_store.ts";
 * import { BlobOwners } from "./blob_owners.ts";
 * const store = new FileBlobStore(await Deno.makeTempDir());
 * const owners = new BlobOwners(store);
 * const { ref } = await store.put("the same output");
 * await owners.add("alice", ref);
 * await owners.add("bob", ref);
 * assert.ok(await owners.owns("alice", ref));
 * assert.ok(await owners.owns("bob", ref));
 * assert.ok(!(await owners.owns("carol", ref)));
 * assert.deepEqual((await owners.list("alice")).map((blob) => blob.ref), [ref]);
 * ```
 */
export class BlobOwners {
  readonly #store: BlobStore;

  /** @param store where the outputs and their records are */
  constructor(store: BlobStore) {
    this.#store = store;
  }

  /** Records, durably, that `owner` produced output `ref` (again: nothing changes). */
  async add(owner: string, ref: BlobRef): Promise<void> {
    await this.#store.put(recordText(owner, ref));
  }

  /** Whether `owner` produced output `ref`. */
  async owns(owner: string, ref: BlobRef): Promise<boolean> {
    return (await this.#store.stat(refOf(recordText(owner, ref)))) !== undefined;
  }

  /** The outputs `owner` produced that the store still holds, by reference. */
  async list(owner: string): Promise<StoredBlob[]> {
    const blobs = await this.#store.list();
    const refs = new Set(blobs.map((blob) => blob.ref));
    return blobs.filter((blob) => refs.has(refOf(recordText(owner, blob.ref))));
  }

  /**
   * Adds to `referenced` the records of every output in it, whoever owns
   * it, so that a collection keeping an output keeps who may read it.
   */
  static async keepRecords(store: BlobStore, referenced: Set<BlobRef>): Promise<void> {
    for (const blob of await store.list()) {
      if (blob.bytes > MAX_RECORD_BYTES || referenced.has(blob.ref)) continue;
      const read = await store.readRange(blob.ref, 0, blob.bytes);
      if (read === undefined) continue;
      const record = RECORD.exec(new TextDecoder().decode(read.bytes));
      if (record !== null && referenced.has(record[1] as BlobRef)) referenced.add(blob.ref);
    }
  }
}
