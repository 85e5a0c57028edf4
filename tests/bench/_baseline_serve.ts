/**
 * `spillway serve --http` of another tree (a checkout of the branch a
 * change is measured against: `git worktree add --detach /tmp/main-tree
 * main`), run with that tree's deno.json, so a bench can put the same
 * clients in front of the gateway before and after a change.
 *
 * @module
 */

import { join } from "../_paths.ts";
import { type ServeProcess, StreamLines, upstreamConfig } from "../gateway_fixtures.ts";

/**
 * Starts `deno run --config TREE/deno.json TREE/src/cli.ts serve --http
 * 127.0.0.1:0 <flags>` with `options.config` (default: the conformance
 * upstream) and waits for it to listen, as `spawnHttpServe` does for this
 * tree. Disposing sends SIGTERM and waits for the exit.
 */
export async function spawnBaselineServe(
  tree: string,
  flags: readonly string[],
  options: { readonly config?: string; readonly env?: Record<string, string> } = {},
): Promise<ServeProcess> {
  const dir = await Deno.makeTempDir({ prefix: "spillway-baseline-serve-" });
  const config = join(dir, "config.toml");
  await Deno.writeTextFile(config, options.config ?? upstreamConfig());
  const workspace = join(dir, "ws");
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      ...["run", "-A", "--quiet", "--config", join(tree, "deno.json"), join(tree, "src/cli.ts")],
      ...["serve", "--http", "127.0.0.1:0", "--workspace", workspace, "--config", config],
      ...flags,
    ],
    cwd: dir,
    env: options.env ?? {},
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new StreamLines(child.stderr);
  const disposal = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already exited.
    }
    await child.status;
    await stderr.ended;
    await Deno.remove(dir, { recursive: true });
  };
  try {
    const [, url] = await stderr.waitFor(/ tools at (http:\S+)$/) as [string, string];
    return { child, stderr, workspace, url: new URL(url), [Symbol.asyncDispose]: disposal };
  } catch (error) {
    await disposal();
    throw error;
  }
}
