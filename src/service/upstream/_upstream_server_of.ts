/**
 * Private helper of {@linkcode McpUpstreamSource}: the options of a source
 * checked and turned into where its server is ({@linkcode UpstreamServer}).
 *
 * @module
 */

import type { McpUpstreamSourceOptions } from "./mcp_upstream_source.ts";
import type { UpstreamServer } from "./upstream_link.ts";

/**
 * Where the server is, from the source's options, checked.
 *
 * @throws {TypeError} when `name` does not look like `mcp.<server>`, or not
 *   exactly one of a non-empty `command` and an `http(s)` `url` is given
 */
export function upstreamServerOf(options: McpUpstreamSourceOptions): UpstreamServer {
  const { name, command, url, headers, args, env, clearEnv, cwd, stderr, closeGraceMs } = options;
  if (!/^mcp\.[^.]+$/.test(name)) {
    throw new TypeError(`upstream source name must look like \`mcp.<server>\`, got \`${name}\``);
  }
  if ((command === undefined) === (url === undefined)) {
    throw new TypeError(`${name}: give either a command (stdio) or a url (http)`);
  }
  if (command === "") throw new TypeError(`${name}: command must name the server's executable`);
  if (url !== undefined) {
    if (!/^https?:\/\//.test(url)) {
      throw new TypeError(`${name}: url must be http:// or https://, got \`${url}\``);
    }
    return { kind: "http", url, ...(headers === undefined ? {} : { headers }) };
  }
  return {
    kind: "stdio",
    process: {
      command: command ?? "",
      ...(args === undefined ? {} : { args }),
      ...(env === undefined ? {} : { env }),
      ...(clearEnv === undefined ? {} : { clearEnv }),
      ...(cwd === undefined ? {} : { cwd }),
      ...(stderr === undefined ? {} : { stderr }),
      ...(closeGraceMs === undefined ? {} : { closeGraceMs }),
    },
  };
}
