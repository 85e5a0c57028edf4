/**
 * One upstream MCP server from `[providers.mcp.<name>]`, validated and
 * merged across layers. Tools name it with `source = "mcp.<name>"`.
 *
 * @module
 */

/**
 * The values of `protocol`, in the order messages list them: `auto` (the
 * default) probes with `server/discover` and falls back to `initialize`;
 * a revision is spoken without fallback.
 */
export const MCP_PROTOCOLS = ["auto", "2025-11-25", "2026-07-28"] as const;

/** A value of `protocol`. */
export type McpProtocol = typeof MCP_PROTOCOLS[number];

/** Fields every provider has. */
export interface McpProviderBase {
  /** The `<name>` of `providers.mcp.<name>`. */
  readonly name: string;
  /**
   * How long the server gets to answer the MCP handshake when spillway
   * starts it, in ms (`startup_timeout`, in seconds in the file). Default:
   * `DEFAULT_STARTUP_TIMEOUT_SECONDS` (30 s).
   */
  readonly startupTimeoutMs: number;
  /** The MCP revision spoken to it (`protocol`). Default: `"auto"`. */
  readonly protocol: McpProtocol;
  /**
   * Which layer set each key (`"type"`, `"command"`, `"arguments"`, `"url"`,
   * `"startup_timeout"`, `"protocol"`, `"pass_env"`, `"environment.<VAR>"`): a file path or `"--cfg"`;
   * a key left at its default has no entry.
   */
  readonly origins: Readonly<Record<string, string>>;
}

/** A server spawned as a subprocess, spoken to over stdio. */
export interface McpStdioProviderConfig extends McpProviderBase {
  /** `type = "stdio"`. */
  readonly type: "stdio";
  /** The program to run (no shell). */
  readonly command: string;
  /** Its arguments. Defaults to `[]`. */
  readonly arguments: readonly string[];
  /** Variables set for it (`environment`), over what it gets of spillway's. Defaults to `{}`. */
  readonly environment: Readonly<Record<string, string>>;
  /**
   * The variables of spillway's environment it gets besides the default ones
   * (`pass_env`): names, prefixes ending in `*`, or `"*"`. Defaults to `[]`.
   */
  readonly passEnv: readonly string[];
}

/** A server reached over Streamable HTTP. */
export interface McpHttpProviderConfig extends McpProviderBase {
  /** `type = "http"`. */
  readonly type: "http";
  /** The endpoint, `http://` or `https://`. */
  readonly url: string;
  /** Headers sent with every request (e.g. `Authorization`). Defaults to `{}`. */
  readonly headers: Readonly<Record<string, string>>;
}

/** An upstream MCP server. */
export type McpProviderConfig = McpStdioProviderConfig | McpHttpProviderConfig;
