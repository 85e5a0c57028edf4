/**
 * Where a command finds a workspace's parts: the conversations and stored
 * outputs (the store `[store]` names: the workspace's own folders, or a
 * database), and each conversation's full-result files
 * (`<workspace>/results/<id>/`, the files the terminal links to for what
 * the assistant did not get, which stay on the machine that ran it).
 *
 * @module
 */

import { basename, join, resolve } from "node:path";
import type { SpillwayConfig } from "../config/spillway_config.ts";
import { tightenWorkspaceFolders } from "../files/private_folders.ts";
import { DEFAULT_WORKSPACE } from "../runtime/create_runtime.ts";
import { type OpenedStore, openStore } from "../runtime/open_store.ts";
import { sanitizeForTerminal } from "../terminal/sanitize.ts";
import { shownPath } from "../terminal/shown_path.ts";
import type { ConversationReader } from "../stream/conversation_reader.ts";
import type { CommandIo } from "./command_io.ts";
import type { ParsedFlags } from "./_flags.ts";

/** A workspace as the commands see it. Close it when done. */
export interface Workspace {
  /** The workspace folder, absolute. */
  readonly dir: string;
  /** Its store. */
  readonly store: OpenedStore;
  /** Its conversations (`store.conversations`). */
  readonly conversations: ConversationReader;
  /** The folder of conversation `id`'s full-result files. */
  resultsDir(id: string): string;
  /**
   * `place` as a person reads it: a path relative to the working directory
   * when inside it; a database as it is.
   */
  shown(place: string): string;
  /** Closes the store. */
  close(): Promise<void>;
}

/**
 * The workspace `--workspace` names (default `.spillway`), resolved against
 * `io.cwd`, with the store `config` names.
 *
 * @throws {SpillwayError} `config_invalid` when the store's password variable is not set
 */
export function openWorkspace(
  flags: ParsedFlags,
  io: CommandIo,
  config: SpillwayConfig,
): Workspace {
  const dir = resolve(io.cwd, flags.string("workspace") ?? DEFAULT_WORKSPACE);
  const store = openStore(config, dir, io.env);
  return {
    dir,
    store,
    conversations: store.conversations,
    resultsDir: (id) => join(dir, "results", id),
    shown: (place) => shownPlace(io.cwd, place),
    close: () => store.close(),
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

/** A path relative to `cwd` when inside it; anything that is not a path (a database) as it is. */
export function shownPlace(cwd: string, place: string): string {
  return /^postgres(ql)?:\/\//.test(place) ? place : shownPath(cwd, place);
}
