/**
 * Makes a directory's entries durable: after a file is created or renamed
 * into a directory, the file's data is only reachable after a crash once the
 * directory itself is synced.
 *
 * @module
 */

/** fsyncs the directory `path` (a no-op on Windows, which needs none and cannot open one). */
export async function syncDirectory(path: string): Promise<void> {
  if (Deno.build.os === "windows") return;
  using dir = await Deno.open(path, { read: true });
  await dir.syncData();
}
