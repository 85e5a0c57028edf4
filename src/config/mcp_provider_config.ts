/**
 * One upstream MCP server from `[providers.mcp.<name>]`, validated and
 * merged across layers. Tools name it with `source = "mcp.<name>"`.
 *
 * @module
 */

/** Fields every provider has. */
export interface McpProviderBase {
  /** The `<name>` of `providers.mcp.<name>`. */
  readonly name: string;
  /**
   * Which layer set each key (`"type"`, `"command"`, `"arguments"`, `"url"`,
   * `"environment.<VAR>"`): `"default"`, a file path, or `"--cfg"`.
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
  /** Extra environment variables for it. Defaults to `{}`. */
  readonly environment: Readonly<Record<string, string>>;
}

/** A server reached over Streamable HTTP. */
export interface McpHttpProviderConfig extends McpProviderBase {
  /** `type = "http"`. */
  readonly type: "http";
  /** The endpoint, `http://` or `https://`. */
  readonly url: string;
}

/** An upstream MCP server. */
export type McpProviderConfig = McpStdioProviderConfig | McpHttpProviderConfig;
