/**
 * Where a command finds a workspace's parts: the conversations (a file
 * stream store under `<workspace>/conversations`) and each conversation's
 * full-result files (`<workspace>/results/<id>/`, the files the terminal
 * links to for what the assistant did not get).
 *
 * @module
 */

import { basename, join, resolve } from "node:path";
import { tightenWorkspaceFolders } from "../files/private_folders.ts";
import { DEFAULT_WORKSPACE } from "../runtime/create_runtime.ts";
import { sanitizeForTerminal } from "../terminal/sanitize.ts";
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

/**
 * Makes the folders of `dir` that an older spillway left readable by others
 * private (0700), and says so in one line; nothing when there were none, so
 * the line comes once. The commands that write a workspace call it at start.
 */
export async function keepWorkspacePrivate(dir: string, io: CommandIo): Promise<void> {
  const tightened = await tightenWorkspaceFolders(dir);
  if (tightened.length === 0) return;
  const names = tightened.map((folder) =>
    `${basename(folder.path)} (was ${folder.was.toString(8).padStart(4, "0")})`
  );
  const line = `spillway: made ${names.join(", ")} in ${shownPath(io.cwd, dir)} private ` +
    "(0700): what tools returned there was readable by anyone on this machine";
  io.stderr(`${sanitizeForTerminal(line, { singleLine: true })}\n`);
}
