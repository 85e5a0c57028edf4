/**
 * `spillway serve --http` of another tree (a checkout of the branch a
 * change is measured against: `git worktree add --detach /tmp/main-tree
 * main`), run with that tree's deno.json, so a bench can put the same
 * clients in front of the gateway before and after a change.
 *
 * @module
 */

import { type ServeProcess, spawnHttpServe } from "../gateway_fixtures.ts";

/**
 * Starts `deno run --config TREE/deno.json TREE/src/cli.ts serve --http
 * 127.0.0.1:0 <flags>` with `options.config` (default: the conformance
 * upstream) and waits for it to listen, as `spawnHttpServe` does for this
 * tree. Disposing sends SIGTERM and waits for the exit.
 */
export function spawnBaselineServe(
  tree: string,
  flags: readonly string[],
  options: { readonly config?: string; readonly env?: Record<string, string> } = {},
): Promise<ServeProcess> {
  return spawnHttpServe(flags, { ...options, tree });
}
