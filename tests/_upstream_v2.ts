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
import { UPSTREAM_V2 } from "./_conformance.ts";
import { StreamLines } from "./gateway_fixtures.ts";

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

/** The v2 upstream over HTTP with `serverArgs`; disposing it stops it. */
export async function httpV2(
  serverArgs: readonly string[],
): Promise<{ readonly url: string } & AsyncDisposable> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...V2_ARGS, "--http", "0", ...serverArgs],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const lines = new StreamLines(child.stdout);
  const stop = async () => {
    child.kill("SIGTERM");
    await child.status;
    await lines.ended;
  };
  try {
    const [, port] = await lines.waitFor(/^listening on (\d+)$/) as [string, string];
    return { url: `http://127.0.0.1:${port}/mcp`, [Symbol.asyncDispose]: stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
