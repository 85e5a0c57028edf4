/**
 * The blob half of `spillway conversation gc`: stored outputs (`spill =
 * true`) that no conversation refers to any more are removed, with the
 * temporary files of writes a crash interrupted. A blob written in the last
 * hour is kept whatever the conversations say (its call may not be recorded
 * yet), and so is one written more recently than `--older-than` asks.
 *
 * @module
 */

import type { BlobRef } from "../blobs/blob_ref.ts";
import { BLOB_GC_GRACE_MS, collectBlobGarbage } from "../blobs/collect_blob_garbage.ts";
import { plural } from "../terminal/plural.ts";
import { removeStaleFiles } from "../blobs/remove_stale_files.ts";
import { spoolDirectory } from "../runtime/output_options.ts";
import { SPOOL_PREFIX } from "../service/output_sink.ts";
import { ByteSize } from "../size/byte_size.ts";
import type { CommandIo } from "./command_io.ts";
import type { Workspace } from "./_workspace.ts";

/** What {@linkcode gcBlobs} is told. */
export interface GcBlobsOptions {
  /** Keep what was written less than this long ago (never less than an hour), in ms. */
  readonly olderThanMs: number;
  /** Only list what would go. */
  readonly dryRun: boolean;
  /** The age suffix of the summary line (`" older than 30 days"`, or `""`). */
  readonly age: string;
}

/**
 * Removes the workspace's unreferenced blobs and stale spool files, and
 * prints what it did. Says nothing at all when the workspace has no blob
 * store and no spool file to remove.
 */
export async function gcBlobs(
  workspace: Workspace,
  io: CommandIo,
  options: GcBlobsOptions,
): Promise<void> {
  const blobs = workspace.store.blobs;
  const graceMs = Math.max(options.olderThanMs, BLOB_GC_GRACE_MS);
  const now = (io.now?.() ?? new Date()).getTime();
  // Outputs spooled for calls a crash never released: unfinished writes too.
  const spooled = await removeStaleFiles(spoolDirectory(workspace.dir), {
    prefix: SPOOL_PREFIX,
    graceMs,
    now,
    dryRun: options.dryRun,
  });
  // A workspace whose tools never spilled has no blob folder: nothing to say then.
  const hasStore = workspace.store.type !== "file" || await isDirectory(blobs.location);
  if (!hasStore && spooled === 0) return;
  const referenced = new Set<BlobRef>();
  if (hasStore) await workspace.conversations.blobRefs(referenced);
  const garbage = await collectBlobGarbage(blobs, referenced, {
    graceMs,
    dryRun: options.dryRun,
    now: new Date(now),
  });
  const unfinishedCount = garbage.unfinished + spooled;
  const where = workspace.shown(blobs.location);
  const count = plural(garbage.removed.length, "stored output");
  const total = ByteSize.fromBytes(garbage.removed.reduce((sum, b) => sum + b.bytes, 0)).human();
  const unfinished = unfinishedCount === 0
    ? ""
    : ` and ${plural(unfinishedCount, "unfinished write")}`;
  if (garbage.removed.length === 0 && unfinishedCount === 0) {
    io.stdout(`No stored outputs${options.age} that no conversation refers to in ${where}.\n`);
  } else if (options.dryRun) {
    for (const blob of garbage.removed) {
      io.stdout(`would remove ${workspace.shown(blobs.describe(blob.ref))}\n`);
    }
    io.stdout(
      `Dry run: ${count}${options.age} that no conversation refers to (${total})${unfinished} ` +
        `would be removed.\n`,
    );
  } else {
    io.stdout(
      `Removed ${count}${options.age} that no conversation refers to (${total})${unfinished} ` +
        `from ${where}.\n`,
    );
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
