/**
 * A conversation's full-result files: what `conversation ls` totals and
 * `conversation gc` removes.
 *
 * @module
 */

import { join } from "node:path";

/** One full-result file. */
export interface ResultFile {
  /** Its path. */
  readonly path: string;
  /** Its size in bytes. */
  readonly bytes: number;
  /** When it was last written. */
  readonly modified: Date;
}

/** The files in `dir` (none when it does not exist), by name. */
export async function resultFiles(dir: string): Promise<ResultFile[]> {
  const files: ResultFile[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile) continue;
      const path = join(dir, entry.name);
      const info = await Deno.stat(path);
      files.push({ path, bytes: info.size, modified: info.mtime ?? new Date(0) });
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
