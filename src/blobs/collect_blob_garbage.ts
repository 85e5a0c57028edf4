/**
 * Garbage collection of the blob store (`spillway conversation gc`): blobs
 * no stream refers to are removed, and so are the leftovers of writes that
 * never finished (a crash). Blobs written or reused within the grace
 * period are kept whatever the streams say: a call whose output was just
 * stored is not recorded yet, and removing its blob would leave the
 * reference about to be delivered pointing at nothing.
 *
 * @module
 */

import { BlobOwners } from "./blob_owners.ts";
import type { BlobRef } from "./blob_ref.ts";
import type { BlobGarbage, BlobStore } from "./blob_store.ts";

export type { BlobGarbage } from "./blob_store.ts";

/** How long a new (or reused) blob is kept even when no stream refers to it: one hour. */
export const BLOB_GC_GRACE_MS = 60 * 60 * 1000;

/** Options of {@linkcode collectBlobGarbage}. */
export interface CollectBlobGarbageOptions {
  /** The current time. Default: now. */
  readonly now?: Date;
  /** The grace period in ms. Default {@linkcode BLOB_GC_GRACE_MS}. */
  readonly graceMs?: number;
  /** Only report what would be removed. Default `false`. */
  readonly dryRun?: boolean;
}

/**
 * Removes the blobs of `store` that are not in `referenced` and are older
 * than the grace period, and stale leftovers of unfinished writes. A kept
 * output keeps the records of who produced it (`blob_owners.ts`).
 *
 * @param referenced every blob reference found in the streams
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileBlobStore } from "./file_blob_store.ts";
 * import { collectBlobGarbage } from "./collect_blob_garbage.ts";
 * const store = new FileBlobStore(await Deno.makeTempDir());
 * const kept = await store.put("referenced");
 * const dropped = await store.put("forgotten");
 * const later = new Date(Date.now() + 2 * 60 * 60 * 1000);
 * const garbage = await collectBlobGarbage(store, new Set([kept.ref]), { now: later });
 * assert.deepEqual(garbage.removed.map((b) => b.ref), [dropped.ref]);
 * assert.equal(garbage.kept, 1);
 * ```
 */
export async function collectBlobGarbage(
  store: BlobStore,
  referenced: ReadonlySet<BlobRef>,
  options: CollectBlobGarbageOptions = {},
): Promise<BlobGarbage> {
  const now = (options.now ?? new Date()).getTime();
  const graceMs = options.graceMs ?? BLOB_GC_GRACE_MS;
  const kept = new Set(referenced);
  await BlobOwners.keepRecords(store, kept);
  return await store.collect(kept, {
    keepSince: new Date(now - graceMs),
    dryRun: options.dryRun === true,
  });
}
