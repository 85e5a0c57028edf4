/**
 * The MCP servers part of `spillway config check`: each `[providers.mcp]`
 * server, its type and what it runs or reaches (environment variable names
 * only, never their values).
 *
 * @module
 */

import type { McpProviderConfig } from "../config/mcp_provider_config.ts";
import { quoteArg } from "./_quote_arg.ts";
import { safeTable } from "./_safe_table.ts";

/** The `MCP servers (providers.mcp):` section, or one line saying there are none. */
export function providersSection(
  providers: readonly McpProviderConfig[],
  shorten: (path: string) => string,
): string {
  if (providers.length === 0) return "MCP servers (providers.mcp): none\n";
  const rows = [["NAME", "TYPE", "TARGET", "FROM"]];
  for (const provider of providers) {
    const from = provider.origins["type"] ?? "";
    let target: string;
    if (provider.type === "http") {
      target = provider.url;
    } else {
      target = [provider.command, ...provider.arguments].map(quoteArg).join(" ");
      // Names only: environment values are often tokens.
      const names = Object.keys(provider.environment);
      if (names.length > 0) target += `  (env: ${names.join(", ")})`;
      if (provider.passEnv.length > 0) target += `  (pass_env: ${provider.passEnv.join(", ")})`;
    }
    if (provider.origins["startup_timeout"] !== undefined) {
      target += `  (startup_timeout: ${provider.startupTimeoutMs / 1000} s)`;
    }
    if (provider.origins["protocol"] !== undefined) target += `  (protocol: ${provider.protocol})`;
    rows.push([provider.name, provider.type, target, from === "--cfg" ? from : shorten(from)]);
  }
  return `MCP servers (providers.mcp):\n${safeTable(rows)}`;
}
