/**
 * `spillway conversation gc --older-than DAYS`: removes full-result files
 * (the raw text the terminal linked to when a cap cut a response) that have
 * not been written for DAYS days, and stored outputs (`spill = true`) that
 * no conversation refers to any more. Conversation logs are never touched:
 * they are the record of what the model was sent.
 *
 * @module
 */

import { join } from "node:path";
import { plural } from "../terminal/plural.ts";
import { ByteSize } from "../size/byte_size.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import type { Command } from "./command.ts";
import type { CommandIo } from "./command_io.ts";
import type { ParsedFlags } from "./_flags.ts";
import { type ResultFile, resultFiles } from "./_result_files.ts";
import { openWorkspace, type Workspace } from "./_workspace.ts";
import { CONFIG_FLAGS } from "./_common_flags.ts";
import { loadConfigOrReport } from "./_config_problems.ts";
import { gcBlobs } from "./_gc_blobs.ts";
import { sanitizeForTerminal } from "../terminal/sanitize.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** `spillway conversation gc`. */
export const conversationGcCommand: Command = {
  name: "conversation gc",
  summary: "remove old full-result files and unreferenced stored outputs",
  usage: "spillway conversation gc --older-than DAYS [--workspace DIR] [--config FILE]... " +
    "[--cfg KEY=VALUE]... [--dry-run]",
  description: `Removes the full-result files of every conversation of the workspace
(<workspace>/results/<id>/) last written more than DAYS days ago, and the
folders left empty. These files hold the raw text of responses the caps
cut, for people to read; the assistant never gets them. Also removes the
stored outputs of spilling tools (<workspace>/blobs/) that no conversation
refers to, unless written in the last DAYS days (or the last hour); with
[store] type = "postgres", the database's stored outputs that no
conversation in it refers to.
Conversation logs are never removed. --dry-run lists what would be removed.`,
  flags: [
    ...CONFIG_FLAGS,
    {
      name: "older-than",
      kind: "string",
      valueName: "DAYS",
      help: "remove files last written more than DAYS days ago (0: all)",
    },
    { name: "dry-run", kind: "boolean", help: "list what would be removed; remove nothing" },
  ],
  run,
};

async function run(flags: ParsedFlags, io: CommandIo): Promise<number> {
  const text = flags.string("older-than");
  if (text === undefined) throw usage("missing --older-than DAYS (e.g. --older-than 30)");
  if (!/^\d+$/.test(text.trim())) {
    throw usage(
      `--older-than ${JSON.stringify(text)} is not a number of days ` +
        `(expected a whole number such as 30, or 0 for all)`,
    );
  }
  const days = Number(text.trim());
  const config = await loadConfigOrReport(flags, io);
  if (config === undefined) return 1;
  const workspace = openWorkspace(flags, io, config);
  try {
    return await collect(flags, io, workspace, days);
  } finally {
    await workspace.close();
  }
}

async function collect(
  flags: ParsedFlags,
  io: CommandIo,
  workspace: Workspace,
  days: number,
): Promise<number> {
  const root = join(workspace.dir, "results");
  const cutoff = (io.now?.() ?? new Date()).getTime() - days * DAY_MS;
  const old: ResultFile[] = [];
  const folders: string[] = [];
  for (const folder of await subfolders(root)) {
    folders.push(folder);
    old.push(...(await resultFiles(folder)).filter((file) => file.modified.getTime() < cutoff));
  }
  const where = workspace.shown(root);
  const age = days === 0 ? "" : ` older than ${plural(days, "day")}`;
  const total = ByteSize.fromBytes(old.reduce((sum, file) => sum + file.bytes, 0)).human();
  const dryRun = flags.boolean("dry-run");
  const blobs = { olderThanMs: days * DAY_MS, dryRun, age };
  if (old.length === 0) {
    io.stdout(`No full-result files${age} in ${where}.\n`);
    await gcBlobs(workspace, io, blobs);
    return 0;
  }
  if (dryRun) {
    for (const file of old) io.stdout(`would remove ${workspace.shown(file.path)}\n`);
    io.stdout(
      `Dry run: ${plural(old.length, "full-result file")}${age} (${total}) would be removed.\n`,
    );
    await gcBlobs(workspace, io, blobs);
    return 0;
  }
  let failed = 0;
  for (const file of old) {
    try {
      await Deno.remove(file.path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      io.stderr(
        sanitizeForTerminal(`error: could not remove ${file.path}: ${(error as Error).message}\n`),
      );
      failed++;
    }
  }
  for (const folder of folders) {
    // Only an empty folder goes; one still holding files stays.
    await Deno.remove(folder).catch(() => {});
  }
  io.stdout(
    `Removed ${plural(old.length - failed, "full-result file")}${age} (${total}) from ${where}.\n`,
  );
  await gcBlobs(workspace, io, blobs);
  return failed > 0 ? 1 : 0;
}

async function subfolders(root: string): Promise<string[]> {
  const found: string[] = [];
  try {
    for await (const entry of Deno.readDir(root)) {
      if (entry.isDirectory) found.push(join(root, entry.name));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found.sort();
}

function usage(message: string): SpillwayError {
  return new SpillwayError("usage", message);
}
