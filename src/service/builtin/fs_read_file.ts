/**
 * The `fs_read_file` builtin: returns the text of one file of the working
 * directory. The content is returned whole; bounding it is the runtime's
 * job (the per-tool `size_threshold`), not the tool's. A file larger than
 * the call's output window is streamed through an {@linkcode OutputCollector}
 * instead of read whole: memory holds its two ends, the sink's file all of it.
 *
 * @module
 */

import { collectedResult, OutputCollector } from "../output_collector.ts";
import type { OutputSink } from "../output_sink.ts";
import type { ToolResult } from "../tool_source.ts";
import type { BuiltinTool } from "./builtin_tool.ts";
import { confine, errorResult } from "./_confine.ts";
import * as files from "../../platform/files.ts";

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
  async run(args, { signal, cwd, hidden, output, scansJson }) {
    const { path } = args;
    if (path === undefined) return errorResult("fs_read_file: `path` is required");
    if (typeof path !== "string") {
      return errorResult(`fs_read_file: \`path\` must be a string, got ${JSON.stringify(path)}`);
    }
    const confined = await confine(cwd, path, hidden);
    if (!confined.ok) return confined.result;
    const info = await files.stat(confined.path);
    if (info.isDirectory) return errorResult(`is a directory: \`${path}\``);
    if (output === undefined || info.size <= output.windowBytes) {
      return await files.readTextFile(confined.path, { signal });
    }
    return await streamFile(confined.path, output, signal, scansJson === true);
  },
};

/** Reads a large file through an {@linkcode OutputCollector}: memory holds only its window. */
async function streamFile(
  path: string,
  output: OutputSink,
  signal: AbortSignal,
  scansJson: boolean,
): Promise<ToolResult> {
  const collector = new OutputCollector(output, { scansJson });
  try {
    using file = await files.open(path, { read: true });
    const buffer = new Uint8Array(1 << 20);
    for (;;) {
      signal.throwIfAborted();
      const read = await file.read(buffer);
      if (read === null) break;
      await collector.push(buffer.subarray(0, read));
    }
    return collectedResult(await collector.finish());
  } catch (error) {
    await collector.abort();
    throw error;
  }
}
