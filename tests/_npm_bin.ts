/**
 * A peer gateway's executable, as npx installs it, so a bench runs it as
 * one process it can measure and stop.
 *
 * @module
 */

/** The path of `bin` from the npm package `pkg` (installed by npx, from its cache when it can). */
export async function npmBin(pkg: string, bin: string): Promise<string> {
  const { stdout, success } = await new Deno.Command("npx", {
    args: ["-y", "--prefer-offline", "-p", pkg, "-c", `command -v ${bin}`],
    env: { npm_config_update_notifier: "false" },
    stderr: "inherit",
  }).output();
  if (!success) throw new Error(`npx could not install ${pkg}`);
  return new TextDecoder().decode(stdout).trim();
}
