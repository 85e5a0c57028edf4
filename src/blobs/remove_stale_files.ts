/**
 * Removing files a crash left behind: the temporary files of blob writes
 * that never finished, and spooled outputs of calls that were never
 * released. Only files not written for a grace period go, so a write in
 * progress in another process is never pulled from under it.
 *
 * @module
 */

import { join } from "node:path";
import * as files from "../platform/files.ts";
import { isNotFound } from "../platform/file_errors.ts";

/** Options of {@linkcode removeStaleFiles}. */
export interface RemoveStaleFilesOptions {
  /** Only files whose name starts with this. */
  readonly prefix: string;
  /** Files written less than this long ago stay, in ms. */
  readonly graceMs: number;
  /** The current time, in ms since the epoch. */
  readonly now: number;
  /** Only count what would be removed. */
  readonly dryRun: boolean;
}

/**
 * Removes the stale files of `dir` (none when it does not exist).
 *
 * @returns how many were removed (or would be)
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { removeStaleFiles } from "./remove_stale_files.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/.tmp-1`, "half");
 * const later = Date.now() + 2 * 60 * 60 * 1000;
 * const options = { prefix: ".tmp-", graceMs: 60 * 60 * 1000, now: later, dryRun: false };
 * assert.equal(await removeStaleFiles(dir, options), 1);
 * ```
 */
export async function removeStaleFiles(
  dir: string,
  options: RemoveStaleFilesOptions,
): Promise<number> {
  let removed = 0;
  try {
    for await (const entry of files.readDir(dir)) {
      if (!entry.isFile || !entry.name.startsWith(options.prefix)) continue;
      const path = join(dir, entry.name);
      const info = await files.stat(path).catch(() => undefined);
      if (info === undefined || options.now - (info.mtime?.getTime() ?? 0) < options.graceMs) {
        continue;
      }
      if (!options.dryRun) {
        try {
          await files.remove(path);
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
      }
      removed++;
    }
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  return removed;
}
