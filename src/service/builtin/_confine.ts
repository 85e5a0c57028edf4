/**
 * Keeps the file-system builtins inside their working directory. Paths are
 * checked twice: lexically (so `../x` is refused without touching the disk)
 * and after `Deno.realPath` (so a symlink pointing out is refused too).
 *
 * @module
 */

import { isAbsolute, relative, resolve, sep } from "node:path";
import type { ToolResult } from "../tool_source.ts";

/** A path resolved inside the root, or the error result to hand back. */
export type Confined =
  | { readonly ok: true; readonly root: string; readonly path: string }
  | { readonly ok: false; readonly result: ToolResult };

/** An `isError` text result. */
export function errorResult(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

/**
 * Resolves `requested` against the real path of `cwd` and checks that both
 * its lexical and its real location stay inside it.
 */
export async function confine(cwd: string, requested: string): Promise<Confined> {
  const root = await Deno.realPath(cwd);
  const lexical = resolve(root, requested);
  const outside = errorResult(`path \`${requested}\` is outside the working directory`);
  if (!isInside(root, lexical)) return { ok: false, result: outside };
  let real: string;
  try {
    real = await Deno.realPath(lexical);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { ok: false, result: errorResult(`no such file or directory: \`${requested}\``) };
    }
    throw error;
  }
  if (!isInside(root, real)) return { ok: false, result: outside };
  return { ok: true, root, path: real };
}
