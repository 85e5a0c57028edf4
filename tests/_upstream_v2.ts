/**
 * Test helper: the v2 conformance upstream
 * (`tests/fixtures/gateway/conformance_v2/server.ts`) with every permission
 * (its `--log` and its `spillway_wait` tool write files), as an upstream
 * source over stdio or as an HTTP server.
 */

import {
  McpUpstreamSource,
  type McpUpstreamSourceOptions,
} from "../src/service/upstream/mcp_upstream_source.ts";
import { startUpstreamV2, UPSTREAM_V2 } from "./_conformance.ts";

/** Deno's arguments running the v2 upstream with every permission (its `--log` and `spillway_wait` write files). */
export const V2_ARGS: readonly string[] = ["run", "--quiet", "-A", UPSTREAM_V2];

/** A source of the v2 upstream over stdio, run with `serverArgs`. */
export function stdioV2(
  serverArgs: readonly string[],
  options: Partial<McpUpstreamSourceOptions> = {},
): McpUpstreamSource {
  return new McpUpstreamSource({
    name: "mcp.v2",
    command: Deno.execPath(),
    args: [...V2_ARGS, ...serverArgs],
    stderr: "null",
    ...options,
  });
}

/** The v2 upstream over HTTP with `serverArgs`, every permission given; disposing it stops it. */
export async function httpV2(
  serverArgs: readonly string[],
): Promise<{ readonly url: string } & AsyncDisposable> {
  const upstream = await startUpstreamV2(serverArgs, V2_ARGS);
  return { url: upstream.url.href, [Symbol.asyncDispose]: () => upstream[Symbol.asyncDispose]() };
}
