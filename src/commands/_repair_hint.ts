/**
 * Private helper of the commands: the one wording that tells a person how
 * to repair a conversation without a model call. `query` prints it when a
 * conversation no longer fits the model's context window, `conversation ls`
 * when conversations still send the model responses over today's
 * `size_threshold`. The command is printed as it can be pasted: from the
 * repository (`deno task spillway`), with `--workspace` when the workspace
 * is not the default one, and the `--config` files the command was given
 * (in their order: they may name the store the conversations are in).
 *
 * @module
 */

import { resolve } from "node:path";
import { shownPath } from "../terminal/shown_path.ts";
import { DEFAULT_WORKSPACE } from "../runtime/create_runtime.ts";
import { programName } from "./_program_name.ts";

/** How the hint's compaction changes responses. */
export type RepairCompaction =
  /** Each response cut to its tool's size_threshold of today. */
  | { readonly tools: "cap" }
  /** Responses of `over` or more replaced with a one-line stub. */
  | { readonly tools: "strip-responses"; readonly over: string };

/** Where the conversations are, to name the workspace when it is not the default. */
export interface RepairWorkspace {
  /** The workspace folder, absolute. */
  readonly dir: string;
  /** The working directory the command is typed in. */
  readonly cwd: string;
  /** The `--config` files the command was given, as given (relative to `cwd` or absolute). */
  readonly configFiles?: readonly string[];
}

/**
 * The two lines (each ending in a newline) that name the repair of
 * conversations `ids`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { repairHint } from "./_repair_hint.ts";
 * assert.equal(
 *   repairHint(["20261130-100000-bbbbbb"], { tools: "cap" }, { dir: "/w/ws", cwd: "/w" }),
 *   "Repair without a model call (the log keeps every original byte):\n" +
 *     "  deno task spillway conversation compact --tools=cap --workspace ws 20261130-100000-bbbbbb\n",
 * );
 * ```
 */
export function repairHint(
  ids: readonly string[],
  compaction: RepairCompaction,
  workspace: RepairWorkspace,
): string {
  const words = [`${programName()} conversation compact`, `--tools=${compaction.tools}`];
  if (compaction.tools === "strip-responses") words.push("--over", compaction.over);
  if (workspace.dir !== resolve(workspace.cwd, DEFAULT_WORKSPACE)) {
    words.push("--workspace", shellWord(shownPath(workspace.cwd, workspace.dir)));
  }
  for (const file of workspace.configFiles ?? []) {
    words.push("--config", shellWord(shownPath(workspace.cwd, resolve(workspace.cwd, file))));
  }
  words.push(...ids);
  return "Repair without a model call (the log keeps every original byte):\n" +
    `  ${words.join(" ")}\n`;
}

/** `word` as a POSIX shell reads it back unchanged. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
