/**
 * The `fs_read_file` builtin: returns the text of one file of the working
 * directory. The content is returned whole; bounding it is the runtime's
 * job (the per-tool `size_threshold`), not the tool's.
 *
 * @module
 */

import type { BuiltinTool } from "./builtin_tool.ts";
import { confine, errorResult } from "./_confine.ts";

/**
 * Reads a file as UTF-8 text (invalid bytes become U+FFFD).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fsReadFile } from "./fs_read_file.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.txt`, "hello");
 * const signal = new AbortController().signal;
 * assert.equal(await fsReadFile.run({ path: "a.txt" }, { signal, cwd: dir }), "hello");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export const fsReadFile: BuiltinTool = {
  name: "fs_read_file",
  description: "Read a text file in the working directory and return its content.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "File to read, relative to the working directory." },
    },
    required: ["path"],
    additionalProperties: false,
  },
  async run(args, { signal, cwd }) {
    const { path } = args;
    if (path === undefined) return errorResult("fs_read_file: `path` is required");
    if (typeof path !== "string") {
      return errorResult(`fs_read_file: \`path\` must be a string, got ${JSON.stringify(path)}`);
    }
    const confined = await confine(cwd, path);
    if (!confined.ok) return confined.result;
    const info = await Deno.stat(confined.path);
    if (info.isDirectory) return errorResult(`is a directory: \`${path}\``);
    return await Deno.readTextFile(confined.path, { signal });
  },
};
