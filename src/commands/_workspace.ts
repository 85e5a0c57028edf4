/**
 * Where a command finds a workspace's parts: the conversations (a file
 * stream store under `<workspace>/conversations`) and each conversation's
 * full-result files (`<workspace>/results/<id>/`, the files the terminal
 * links to for what the assistant did not get).
 *
 * @module
 */

import { join, resolve } from "node:path";
import { DEFAULT_WORKSPACE } from "../runtime/create_runtime.ts";
import { shownPath } from "../terminal/shown_path.ts";
import { FileStreamStore } from "../stream/file_stream_store.ts";
import type { CommandIo } from "./command_io.ts";
import type { ParsedFlags } from "./_flags.ts";

/** A workspace as the commands see it. */
export interface Workspace {
  /** The workspace folder, absolute. */
  readonly dir: string;
  /** Its conversations. */
  readonly conversations: FileStreamStore;
  /** The folder of conversation `id`'s full-result files. */
  resultsDir(id: string): string;
  /** `path` as a person reads it: relative to the working directory when inside it. */
  shown(path: string): string;
}

/** The workspace `--workspace` names (default `.spillway`), resolved against `io.cwd`. */
export function workspaceOf(flags: ParsedFlags, io: CommandIo): Workspace {
  const dir = resolve(io.cwd, flags.string("workspace") ?? DEFAULT_WORKSPACE);
  return {
    dir,
    conversations: new FileStreamStore(join(dir, "conversations")),
    resultsDir: (id) => join(dir, "results", id),
    shown: (path) => shownPath(io.cwd, path),
  };
}
