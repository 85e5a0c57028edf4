/**
 * `spillway serve --stdio` as an MCP client spawns it: a real SDK client
 * over the child's stdin and stdout, its stderr collected.
 *
 * @module
 */

import { Client, type ClientOptions, StdioClientTransport } from "../src/service/sdk.ts";
import { CLI } from "./_cli.ts";
import { join } from "./_paths.ts";

/** A connected client of a `serve --stdio` child; closing the client ends the child. */
export interface ServeStdio {
  readonly client: Client;
  /** What the child printed on stderr so far. */
  stderr(): string;
}

/**
 * Spawns `spillway serve --stdio --workspace DIR/ws --config CONFIG` from
 * `dir` (the machine's own user config kept out) and connects a client.
 * `env` is set for spillway on top of this process's environment;
 * `options.denoPath` runs another `deno` (a wrapper script). Default: this one.
 */
export async function serveStdio(
  dir: string,
  config: string,
  env: Readonly<Record<string, string>> = {},
  options: {
    readonly denoPath?: string;
    /** How the client negotiates the protocol era. Default: the SDK's (2025, no probe). */
    readonly negotiation?: NonNullable<ClientOptions["versionNegotiation"]>;
  } = {},
): Promise<ServeStdio> {
  const transport = new StdioClientTransport({
    command: options.denoPath ?? Deno.execPath(),
    args: [
      "run",
      "-A",
      CLI,
      "serve",
      "--stdio",
      "--workspace",
      join(dir, "ws"),
      "--config",
      config,
    ],
    cwd: dir,
    env: { ...Deno.env.toObject(), XDG_CONFIG_HOME: join(dir, "no-user-config"), ...env },
    stderr: "pipe",
  });
  let stderr = "";
  const decoder = new TextDecoder();
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += decoder.decode(chunk));
  const client = new Client(
    { name: "serve-stdio-test", version: "1.0.0" },
    options.negotiation === undefined ? {} : { versionNegotiation: options.negotiation },
  );
  await client.connect(transport);
  return { client, stderr: () => stderr };
}
