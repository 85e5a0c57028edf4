/**
 * What a gateway hides from the builtin file tools it serves: its
 * workspace, where every client's conversations and stored outputs are.
 * When the working folder is the workspace or inside it (nothing else would
 * be left to read), the workspace's own parts are hidden instead: the
 * conversations, stored outputs, spooled outputs and full-result files.
 *
 * @module
 */

import { join, resolve } from "node:path";
import { isInside } from "../service/builtin/_confine.ts";

/** The folders of a workspace that hold what its conversations recorded. */
const RECORDED = ["conversations", "blobs", "spool", "results"] as const;

/**
 * The folders under `cwd` no file tool of the gateway reaches.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hiddenFromFileTools } from "./hidden_from_file_tools.ts";
 * assert.deepEqual(hiddenFromFileTools("/p/.spillway", "/p"), ["/p/.spillway"]);
 * assert.deepEqual(hiddenFromFileTools("/p", "/p"), [
 *   "/p/conversations", "/p/blobs", "/p/spool", "/p/results",
 * ]);
 * ```
 */
export function hiddenFromFileTools(workspace: string, cwd: string): string[] {
  const root = resolve(workspace);
  if (!isInside(root, resolve(cwd))) return [root];
  return RECORDED.map((part) => join(root, part));
}
