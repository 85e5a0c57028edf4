/**
 * Garbage collection of the blob store (`spillway conversation gc`): blobs
 * no stream refers to are removed, and so are temporary files left by a
 * write that never finished (a crash). Blobs written or reused within the
 * grace period are kept whatever the streams say: a call whose output was
 * just stored is not recorded yet, and removing its blob would leave the
 * reference about to be delivered pointing at nothing.
 *
 * @module
 */

import type { BlobRef } from "./blob_ref.ts";
import { BLOB_TEMP_PREFIX, type BlobInfo, type BlobStore } from "./blob_store.ts";
import { removeStaleFiles } from "./remove_stale_files.ts";

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

/** What a collection did. */
export interface BlobGarbage {
  /** The blobs removed (or, on a dry run, that would be). */
  readonly removed: readonly BlobInfo[];
  /** How many blobs were kept. */
  readonly kept: number;
  /** Temporary files of unfinished writes removed (or that would be). */
  readonly unfinished: number;
}

/**
 * Removes the blobs of `store` that are not in `referenced` and are older
 * than the grace period, and stale temporary files.
 *
 * @param referenced every blob reference found in the streams
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BlobStore } from "./blob_store.ts";
 * import { collectBlobGarbage } from "./collect_blob_garbage.ts";
 * const store = new BlobStore(await Deno.makeTempDir());
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
  const removed: BlobInfo[] = [];
  let kept = 0;
  for (const blob of await store.list()) {
    const fresh = now - blob.modified.getTime() < graceMs;
    if (referenced.has(blob.ref) || fresh) {
      kept++;
      continue;
    }
    if (options.dryRun !== true) await removeIfPresent(blob.path);
    removed.push({ ref: blob.ref, bytes: blob.bytes, path: blob.path });
  }
  const unfinished = await removeStaleFiles(store.dir, {
    prefix: BLOB_TEMP_PREFIX,
    graceMs,
    now,
    dryRun: options.dryRun === true,
  });
  return { removed, kept, unfinished };
}

async function removeIfPresent(path: string): Promise<void> {
  try {
    await Deno.remove(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}
