/**
 * The `fs_list_files` builtin: lists a directory of the working directory,
 * one entry per line, directories with a trailing `/`, sorted. Symbolic
 * links are listed but never followed, so a recursive walk cannot leave the
 * working directory or loop.
 *
 * @module
 */

import { join } from "node:path";
import type { BuiltinTool } from "./builtin_tool.ts";
import { confine, errorResult, isInside } from "./_confine.ts";
import * as files from "../../platform/files.ts";

async function walk(
  dir: string,
  prefix: string,
  recursive: boolean,
  signal: AbortSignal,
  hidden: readonly string[],
  out: string[],
): Promise<void> {
  signal.throwIfAborted();
  for await (const entry of files.readDir(dir)) {
    const name = prefix + entry.name;
    const path = join(dir, entry.name);
    // Not followed, so `path` is where the entry really is: a hidden folder is not listed.
    if (hidden.some((folder) => isInside(folder, path))) continue;
    if (entry.isDirectory) {
      out.push(`${name}/`);
      if (recursive) await walk(path, `${name}/`, true, signal, hidden, out);
    } else {
      out.push(name);
    }
  }
}

/**
 * Lists entries under `path` (default `.`), optionally recursively.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fsListFiles } from "./fs_list_files.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.mkdir(`${dir}/src`);
 * await Deno.writeTextFile(`${dir}/src/a.ts`, "");
 * const signal = new AbortController().signal;
 * assert.equal(await fsListFiles.run({ recursive: true }, { signal, cwd: dir }), "src/\nsrc/a.ts");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export const fsListFiles: BuiltinTool = {
  name: "fs_list_files",
  description: "List the files of a directory in the working directory, one per line; " +
    "directories end with `/`. Set `recursive` to walk the whole tree.",
  inputSchema: {
    type: "object",
    properties: {
      path: {
        type: "string",
        description: "Directory to list, relative to the working directory (default `.`).",
      },
      recursive: {
        type: "boolean",
        description: "List the whole tree below `path` (default false).",
      },
    },
    additionalProperties: false,
  },
  async run(args, { signal, cwd, hidden }) {
    const { path = ".", recursive = false } = args;
    if (typeof path !== "string") {
      return errorResult(`fs_list_files: \`path\` must be a string, got ${JSON.stringify(path)}`);
    }
    if (typeof recursive !== "boolean") {
      return errorResult(
        `fs_list_files: \`recursive\` must be a boolean, got ${JSON.stringify(recursive)}`,
      );
    }
    const confined = await confine(cwd, path, hidden);
    if (!confined.ok) return confined.result;
    const info = await files.stat(confined.path);
    if (!info.isDirectory) return errorResult(`not a directory: \`${path}\``);
    const entries: string[] = [];
    await walk(confined.path, "", recursive, signal, confined.hidden, entries);
    // Code-unit order: deterministic across locales.
    entries.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return entries.join("\n");
  },
};
