/**
 * The environment of a process spillway starts (a local tool, a stdio MCP
 * server): never all of spillway's own. Whoever calls a tool reads what it
 * prints, and through `spillway serve` that is any client holding the
 * token, so a variable a tool can see is a variable a client can see. A
 * process gets the few variables programs need to run
 * ({@linkcode DEFAULT_PASSED_ENV}: the locale, the home and temporary
 * folders, the paths, what Deno and npm need to reach a registry), the ones
 * its `pass_env` names, and the values its config sets. spillway's own
 * secrets are left out unless `pass_env` names one exactly.
 *
 * @module
 */

/**
 * What every process spillway starts gets of spillway's environment, when
 * set. An item ending in `*` is a prefix. The list is short on purpose: it is
 * what the MCP SDK's clients pass a stdio server (`HOME`, `LOGNAME`, `PATH`,
 * `SHELL`, `TERM`, `USER`), plus the locale, time zone and temporary folder,
 * the XDG folders, and what a server run by `deno run npm:…` or `npx` needs
 * to find its cache, its registry, a proxy and the certificates (a machine
 * behind a TLS-inspecting proxy needs them to download anything). On
 * Windows, the variables its programs cannot start without.
 */
export const DEFAULT_PASSED_ENV: readonly string[] = Object.freeze([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "TMPDIR",
  "TZ",
  "LANG",
  "LANGUAGE",
  "LC_*",
  "XDG_*",
  "NO_COLOR",
  "DENO_DIR",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "DENO_NO_UPDATE_CHECK",
  "NODE_EXTRA_CA_CERTS",
  "NPM_CONFIG_REGISTRY",
  "NPM_CONFIG_CACHE",
  "npm_config_registry",
  "npm_config_cache",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "all_proxy",
  "SYSTEMROOT",
  "SYSTEMDRIVE",
  "WINDIR",
  "COMSPEC",
  "PATHEXT",
  "TEMP",
  "TMP",
  "USERNAME",
  "USERPROFILE",
  "HOMEDRIVE",
  "HOMEPATH",
  "APPDATA",
  "LOCALAPPDATA",
  "PROGRAMFILES",
  "PROCESSOR_ARCHITECTURE",
]);

/** Options of {@linkcode childEnvironment}. */
export interface ChildEnvironmentOptions {
  /**
   * spillway's secrets (the names of `secretVariables(config)`): left out
   * even when a default or a pattern matches; passed only when `passEnv`
   * names one exactly. Default: none.
   */
  readonly secrets?: Iterable<string>;
  /**
   * More of `inherited` to pass (`pass_env`): names, prefixes ending in `*`,
   * or `"*"` for every variable. Default: none.
   */
  readonly passEnv?: readonly string[];
  /** Values set whatever `inherited` holds (`environment`, the tool's own variables). Default: none. */
  readonly set?: Readonly<Record<string, string>>;
}

/**
 * The whole environment of a child process: what it gets of `inherited`,
 * then `options.set` over it.
 *
 * @param inherited spillway's own environment (`Deno.env.toObject()`)
 * @param options the secrets, `pass_env` and the values set
 * @returns the variables to start the child with (and nothing else: spawn it with `clearEnv`)
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { childEnvironment } from "./child_environment.ts";
 * const inherited = {
 *   PATH: "/usr/bin", AWS_KEY: "k", AWS_REGION: "eu", SPILLWAY_SERVE_TOKEN: "t", DEBUG: "1",
 * };
 * assert.deepEqual(
 *   childEnvironment(inherited, { secrets: ["SPILLWAY_SERVE_TOKEN"], passEnv: ["AWS_*"] }),
 *   { PATH: "/usr/bin", AWS_KEY: "k", AWS_REGION: "eu" },
 * );
 * // "*" passes everything but the secrets; naming a secret passes it.
 * assert.equal(childEnvironment(inherited, { passEnv: ["*"], secrets: ["DEBUG"] }).DEBUG, undefined);
 * assert.equal(childEnvironment(inherited, { passEnv: ["DEBUG"], secrets: ["DEBUG"] }).DEBUG, "1");
 * ```
 */
export function childEnvironment(
  inherited: Readonly<Record<string, string | undefined>>,
  options: ChildEnvironmentOptions = {},
): Record<string, string> {
  const secrets = new Set(options.secrets ?? []);
  const named = new Set(options.passEnv ?? []);
  const passed = matcher([...DEFAULT_PASSED_ENV, ...named]);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(inherited)) {
    if (value === undefined || !passed(name)) continue;
    if (secrets.has(name) && !named.has(name)) continue;
    env[name] = value;
  }
  return Object.assign(env, options.set);
}

/** Whether a name matches one of `patterns` (a name, or a prefix followed by `*`). */
function matcher(patterns: readonly string[]): (name: string) => boolean {
  const exact = new Set(patterns.filter((pattern) => !pattern.endsWith("*")));
  const prefixes = patterns.filter((pattern) => pattern.endsWith("*"))
    .map((pattern) => pattern.slice(0, -1));
  return (name) => exact.has(name) || prefixes.some((prefix) => name.startsWith(prefix));
}
