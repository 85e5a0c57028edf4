/**
 * The reference MCP server `@modelcontextprotocol/server-filesystem` from
 * npm, run under Deno as an upstream of spillway: every tool it lists has an
 * output schema (`{content: string}`, no other members), and every result
 * carries `structuredContent` holding the same text as its text block. The
 * package is cached first with the test's own environment, since spillway
 * starts upstream servers with a minimal one in which Deno cannot download.
 *
 * @module
 */

/** The package, at the version the tests were written against. */
export const FILESYSTEM = "npm:@modelcontextprotocol/server-filesystem@2026.8.31";

/** How to run it on `dir`: no project config or lockfile of whatever directory it starts in. */
export function filesystemArgs(dir: string): string[] {
  return ["run", "--quiet", "--no-config", "--no-lock", "-A", FILESYSTEM, dir];
}

let cached: Promise<void> | undefined;

/** Caches the package (once per test process). */
export function cacheFilesystem(): Promise<void> {
  cached ??= (async () => {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["cache", "--quiet", "--no-config", "--no-lock", FILESYSTEM],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (code !== 0) {
      throw new Error(`could not cache ${FILESYSTEM}: ${new TextDecoder().decode(stderr)}`);
    }
  })();
  return cached;
}

/**
 * `[providers.mcp.<name>]` serving `dir`. `DENO_DIR`, when the tests have
 * one, is passed on so the server finds the cache.
 */
export function filesystemProvider(dir: string, name = "fs"): string {
  const denoDir = Deno.env.get("DENO_DIR");
  return `[providers.mcp.${name}]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ${JSON.stringify(filesystemArgs(dir))}
${denoDir === undefined ? "" : `environment.DENO_DIR = ${JSON.stringify(denoDir)}\n`}`;
}
