/**
 * The `[serve]` part of `spillway config check`: the gateway's limits and
 * client ceilings, and which variable holds each client's token (only
 * whether it is set, never its value).
 *
 * @module
 */

import type { SpillwayConfig } from "../config/spillway_config.ts";
import { formatTable } from "./_table.ts";

/**
 * `[serve]`, when any of it is set (most configurations never serve). Like
 * the model's key, only whether each token variable is set is shown: the
 * default client's and every `[serve.tokens.NAME]` client's.
 */
export function serveSection(
  config: SpillwayConfig,
  env: Readonly<Record<string, string | undefined>>,
  shorten: (path: string) => string,
): string[] {
  const {
    clientCeiling,
    clientCeilings,
    tokenEnv,
    tokens,
    allowedOrigins,
    maxRequestSize,
    sessionIdleTimeout,
    maxSessions,
    inputTimeout,
    maxInputWaits,
    maxInputSize,
    recordInputContents,
  } = config.serve();
  const settings = [
    clientCeiling,
    tokenEnv,
    allowedOrigins,
    maxRequestSize,
    sessionIdleTimeout,
    maxSessions,
    inputTimeout,
    maxInputWaits,
    maxInputSize,
    recordInputContents,
    ...clientCeilings.values(),
    ...tokens.values(),
  ];
  if (settings.every((setting) => setting === undefined || setting.origin === "default")) return [];
  const from = (origin: string) =>
    origin === "default" || origin.startsWith("--") ? origin : shorten(origin);
  const rows = [["SETTING", "VALUE", "FROM"]];
  rows.push([
    "serve.client_ceiling",
    clientCeiling?.value.toString() ?? "none",
    from(clientCeiling?.origin ?? "default"),
  ]);
  for (const [name, ceiling] of clientCeilings) {
    rows.push([
      `serve.client_ceilings.${/^[A-Za-z0-9_-]+$/.test(name) ? name : JSON.stringify(name)}`,
      ceiling.value.toString(),
      from(ceiling.origin),
    ]);
  }
  const set = (variable: string) => (env[variable] ?? "") !== "" ? "set" : "not set";
  rows.push([
    "serve.token_env",
    `${tokenEnv.value} (${set(tokenEnv.value)})`,
    from(tokenEnv.origin),
  ]);
  // Each client's own token: which variable holds it, and whether it is set (never its value).
  for (const [client, variable] of tokens) {
    rows.push([
      `serve.tokens.${client}.env`,
      `${variable.value} (${set(variable.value)})`,
      from(variable.origin),
    ]);
  }
  rows.push([
    "serve.allowed_origins",
    allowedOrigins.value.length === 0 ? "none" : allowedOrigins.value.join(", "),
    from(allowedOrigins.origin),
  ]);
  rows.push([
    "serve.max_request_size",
    maxRequestSize.value.toString(),
    from(maxRequestSize.origin),
  ]);
  rows.push([
    "serve.session_idle_timeout",
    sessionIdleTimeout.value.toString(),
    from(sessionIdleTimeout.origin),
  ]);
  rows.push(["serve.max_sessions", String(maxSessions.value), from(maxSessions.origin)]);
  rows.push(["serve.input_timeout", inputTimeout.value.toString(), from(inputTimeout.origin)]);
  rows.push(["serve.max_input_waits", String(maxInputWaits.value), from(maxInputWaits.origin)]);
  rows.push(["serve.max_input_size", maxInputSize.value.toString(), from(maxInputSize.origin)]);
  rows.push([
    "serve.record_input_contents",
    String(recordInputContents.value),
    from(recordInputContents.origin),
  ]);
  return [`Serve:\n${formatTable(rows)}`];
}
