/**
 * The reference MCP server `@modelcontextprotocol/server-everything` from
 * npm, run under Deno as an upstream of spillway: its tools return images,
 * resource links, embedded resources (text and blob, and one with no text
 * block at all) and `structuredContent`. spillway starts upstream servers
 * with a minimal environment, in which Deno cannot download, so the
 * package is cached first with the test's own environment.
 *
 * @module
 */

import { type CallToolResult, Client, StdioClientTransport } from "../src/service/sdk.ts";

/** The package, at the version the tests were written against. */
export const EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";

/** How to run it: no project config or lockfile of whatever directory it starts in. */
export const EVERYTHING_ARGS = ["run", "--quiet", "--no-config", "--no-lock", "-A", EVERYTHING];

let cached: Promise<void> | undefined;

/** Caches the package (once per test process). */
export function cacheEverything(): Promise<void> {
  cached ??= (async () => {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["cache", "--quiet", "--no-config", "--no-lock", EVERYTHING],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (code !== 0) {
      throw new Error(`could not cache ${EVERYTHING}: ${new TextDecoder().decode(stderr)}`);
    }
  })();
  return cached;
}

/**
 * `[providers.mcp.<name>]` running it. `DENO_DIR`, when the tests have
 * one, is passed on so the server finds the cache.
 */
export function everythingProvider(name = "everything"): string {
  const denoDir = Deno.env.get("DENO_DIR");
  return `[providers.mcp.${name}]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ${JSON.stringify(EVERYTHING_ARGS)}
${denoDir === undefined ? "" : `environment.DENO_DIR = ${JSON.stringify(denoDir)}\n`}`;
}

/** What the server itself returns for each call, from its own instance (no spillway between). */
export async function callEverything(
  ...calls: { readonly name: string; readonly arguments: Record<string, unknown> }[]
): Promise<CallToolResult[]> {
  await cacheEverything();
  const client = new Client({ name: "content-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: Deno.execPath(), args: EVERYTHING_ARGS, stderr: "ignore" }),
  );
  try {
    const results: CallToolResult[] = [];
    for (const call of calls) results.push(await client.callTool(call) as CallToolResult);
    return results;
  } finally {
    await client.close();
  }
}

/** The base64 PNG `get-tiny-image` returns. */
export async function tinyImage(): Promise<string> {
  const [result] = await callEverything(TINY_IMAGE);
  const image = result?.content[1];
  if (image?.type !== "image") throw new Error("get-tiny-image returned no image");
  return image.data;
}

/** The call of `get-tiny-image`. */
export const TINY_IMAGE = { name: "get-tiny-image", arguments: {} };

/** The call of `gzip-file-as-resource` returning "hello" gzipped as an embedded blob, no text. */
export const HELLO_GZ = {
  name: "gzip-file-as-resource",
  arguments: { name: "hello.gz", data: "data:text/plain;base64,aGVsbG8=", outputType: "resource" },
};
