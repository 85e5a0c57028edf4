/**
 * Makes spillway's own folders private again: a workspace written by an
 * older spillway has `conversations/`, `results/` and the like at 0755, so
 * anyone on the machine can read every conversation in them. What spillway
 * creates now is 0700 (files 0600) whatever the umask; folders that exist
 * already are tightened to 0700 here, once (a folder already private is
 * left alone, so the note comes once). Tightening a folder is enough: what
 * is inside cannot be reached without passing through it.
 *
 * @module
 */

import { join } from "node:path";
import * as files from "../platform/files.ts";
import type { FileInfo } from "../platform/file_handle.ts";
import { isNotFound, isPermissionDenied } from "../platform/file_errors.ts";
import { isWindows } from "../platform/processes.ts";

/** The folders of a workspace that hold what tools returned. */
export const PRIVATE_WORKSPACE_FOLDERS: readonly string[] = Object.freeze([
  "conversations",
  "results",
  "blobs",
  "spool",
]);

/** A folder made private, and the mode it had. */
export interface TightenedFolder {
  readonly path: string;
  /** Its permission bits before (e.g. `0o755`). */
  readonly was: number;
}

/**
 * Sets every folder of {@linkcode PRIVATE_WORKSPACE_FOLDERS} in `workspace`
 * that others may enter or read to 0700. A folder missing, already private,
 * or not spillway's to change (owned by another user) is left as it is. On
 * Windows, which has no such modes, nothing is done.
 *
 * @param workspace the workspace folder
 * @returns the folders tightened
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tightenWorkspaceFolders } from "./private_folders.ts";
 * const workspace = await Deno.makeTempDir();
 * await Deno.mkdir(`${workspace}/conversations`);
 * await Deno.chmod(`${workspace}/conversations`, 0o755);
 * assert.deepEqual((await tightenWorkspaceFolders(workspace)).map((f) => f.was), [0o755]);
 * assert.equal((await Deno.stat(`${workspace}/conversations`)).mode! & 0o777, 0o700);
 * assert.deepEqual(await tightenWorkspaceFolders(workspace), []);
 * ```
 */
export async function tightenWorkspaceFolders(workspace: string): Promise<TightenedFolder[]> {
  if (isWindows()) return [];
  const tightened: TightenedFolder[] = [];
  for (const name of PRIVATE_WORKSPACE_FOLDERS) {
    const path = join(workspace, name);
    let info: FileInfo;
    try {
      info = await files.lstat(path);
    } catch (error) {
      if (isNotFound(error)) continue;
      throw error;
    }
    const mode = (info.mode ?? 0) & 0o777;
    if (!info.isDirectory || (mode & 0o077) === 0) continue;
    try {
      await files.chmod(path, 0o700);
    } catch (error) {
      // Another user's folder: not ours to change.
      if (isPermissionDenied(error)) continue;
      throw error;
    }
    tightened.push({ path, was: mode });
  }
  return tightened;
}
