/**
 * Keeps the file-system builtins inside their working directory, and out of
 * the folders hidden from them under it (`spillway serve`'s workspace: the
 * conversations and stored outputs of every client). Paths are checked
 * twice: lexically (so `../x` is refused without touching the disk) and
 * after `Deno.realPath` (so a symlink pointing out, or into a hidden
 * folder, is refused too).
 *
 * @module
 */

import { isAbsolute, relative, resolve, sep } from "node:path";
import type { ToolResult } from "../tool_source.ts";
import * as files from "../../platform/files.ts";
import { isNotFound } from "../../platform/file_errors.ts";

/** A path resolved inside the root, or the error result to hand back. */
export type Confined =
  | {
    readonly ok: true;
    readonly root: string;
    readonly path: string;
    /** The hidden folders, resolved: a walk below `path` skips them. */
    readonly hidden: readonly string[];
  }
  | { readonly ok: false; readonly result: ToolResult };

/** An `isError` text result. */
export function errorResult(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** Whether `path` is `root` or below it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

/** `path`'s real location, or its absolute one while it does not exist. */
async function realOrResolved(path: string): Promise<string> {
  try {
    return await files.realPath(path);
  } catch (error) {
    if (isNotFound(error)) return resolve(path);
    throw error;
  }
}

/**
 * Resolves `requested` against the real path of `cwd` and checks that both
 * its lexical and its real location stay inside it, and out of every
 * folder of `hidden`.
 */
export async function confine(
  cwd: string,
  requested: string,
  hidden: readonly string[] = [],
): Promise<Confined> {
  const root = await files.realPath(cwd);
  const lexical = resolve(root, requested);
  const outside = errorResult(`path \`${requested}\` is outside the working directory`);
  if (!isInside(root, lexical)) return { ok: false, result: outside };
  const folders = await Promise.all(hidden.map(realOrResolved));
  const inHidden = (path: string) => folders.some((folder) => isInside(folder, path));
  const refused = errorResult(
    `path \`${requested}\` is in spillway's workspace, which the file tools do not reach`,
  );
  // Before the disk is asked: whether a hidden file exists is not told either.
  if (inHidden(lexical)) return { ok: false, result: refused };
  let real: string;
  try {
    real = await files.realPath(lexical);
  } catch (error) {
    if (isNotFound(error)) {
      return { ok: false, result: errorResult(`no such file or directory: \`${requested}\``) };
    }
    throw error;
  }
  if (!isInside(root, real)) return { ok: false, result: outside };
  if (inHidden(real)) return { ok: false, result: refused };
  return { ok: true, root, path: real, hidden: folders };
}
