/**
 * Makes a directory's entries durable: after a file is created or renamed
 * into a directory, the file's data is only reachable after a crash once the
 * directory itself is synced.
 *
 * @module
 */

import * as files from "../platform/files.ts";
import { isWindows } from "../platform/processes.ts";

/** fsyncs the directory `path` (a no-op on Windows, which needs none and cannot open one). */
export async function syncDirectory(path: string): Promise<void> {
  if (isWindows()) return;
  using dir = await files.open(path, { read: true });
  await dir.syncData();
}
