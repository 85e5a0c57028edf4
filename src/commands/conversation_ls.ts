/**
 * `spillway conversation ls`: one row per conversation of a workspace, with
 * what tells a dead conversation from a healthy one: its size, its largest
 * tool response, and how many responses the model would still be sent over
 * today's `size_threshold`. Reads the logs without locking them, so it works
 * while a turn is running.
 *
 * @module
 */

import { ClientConversationId } from "../gateway/client_conversation_id.ts";
import { ByteSize } from "../size/byte_size.ts";
import { plural } from "../terminal/plural.ts";
import { sanitizeForTerminal } from "../terminal/sanitize.ts";
import type { Command } from "./command.ts";
import type { CommandIo } from "./command_io.ts";
import { CONFIG_FLAGS } from "./_common_flags.ts";
import { loadConfigOrReport } from "./_config_problems.ts";
import { type ConversationSummary, summarizeConversation } from "./_conversation_summary.ts";
import type { ParsedFlags } from "./_flags.ts";
import { repairHint, type RepairWorkspace } from "./_repair_hint.ts";
import { formatTable } from "./_table.ts";
import { openWorkspace, type Workspace } from "./_workspace.ts";
import type { SpillwayConfig } from "../config/spillway_config.ts";

/** `spillway conversation ls`. */
export const conversationLsCommand: Command = {
  name: "conversation ls",
  summary: "list the conversations of a workspace, with their sizes",
  usage:
    "spillway conversation ls [--workspace DIR] [--config FILE]... [--cfg KEY=VALUE]... [--json]",
  description: `Lists the conversations of the workspace, oldest first: when each started,
its turns, events and size, its largest tool response as the model is sent
it (with its size in the log when a compaction changed it), how many
responses the model would still be sent over today's size_threshold
(compactions applied), and the total size of its full-result files. A
conversation of a spillway serve with clients of their own tokens
([serve.tokens.NAME]) names its client (its id ends in .NAME).

A conversation with responses over the threshold can be repaired with
\`spillway conversation compact --tools=cap ID\` (or --tools=strip-responses).
With --json, prints the same facts (exact byte counts) as one JSON object.`,
  flags: [
    ...CONFIG_FLAGS,
    { name: "json", kind: "boolean", help: "print JSON instead of a table" },
  ],
  run,
};

async function run(flags: ParsedFlags, io: CommandIo): Promise<number> {
  const config = await loadConfigOrReport(flags, io);
  if (config === undefined) return 1;
  const workspace = openWorkspace(flags, io, config);
  try {
    return await list(flags, io, config, workspace);
  } finally {
    await workspace.close();
  }
}

async function list(
  flags: ParsedFlags,
  io: CommandIo,
  config: SpillwayConfig,
  workspace: Workspace,
): Promise<number> {
  const summaries: ConversationSummary[] = [];
  let failed = false;
  for (const id of await workspace.conversations.list()) {
    try {
      summaries.push(await summarizeConversation(workspace, id, config));
    } catch (error) {
      failed = true;
      io.stderr(sanitizeForTerminal(`spillway conversation ls: ${(error as Error).message}\n`));
    }
  }
  // By when each started, not by when its log last changed (a compaction or a new turn).
  summaries.sort((a, b) => compare(a.started ?? "", b.started ?? "") || compare(a.id, b.id));
  for (const summary of summaries) {
    for (const warning of summary.warnings) {
      io.stderr(sanitizeForTerminal(`warning: ${summary.id}: ${warning}\n`));
    }
  }
  const where = workspace.shown(workspace.conversations.where);
  io.stdout(
    flags.boolean("json") ? asJson(summaries, where) : asTable(summaries, where, {
      dir: workspace.dir,
      cwd: io.cwd,
      configFiles: flags.strings("config"),
    }),
  );
  return failed ? 1 : 0;
}

/** The table and the lines under it. */
export function asTable(
  summaries: readonly ConversationSummary[],
  where: string,
  workspace: RepairWorkspace,
): string {
  if (summaries.length === 0) return `No conversations in ${where}.\n`;
  const size = (bytes: number) => ByteSize.fromBytes(bytes).human();
  // A gateway with clients of their own tokens names each conversation's client.
  const clients = summaries.some((s) => clientOf(s) !== undefined);
  // A gateway's conversations say which MCP protocol revision their client spoke.
  const protocols = summaries.some((s) => s.protocol !== undefined);
  const rows = [[
    "ID",
    ...(clients ? ["CLIENT"] : []),
    ...(protocols ? ["PROTOCOL"] : []),
    "STARTED (UTC)",
    "TURNS",
    "EVENTS",
    "SIZE",
    "LARGEST RESPONSE",
    "OVER THRESHOLD",
    "FULL RESULTS",
  ]];
  for (const s of summaries) {
    rows.push([
      s.id,
      ...(clients ? [clientOf(s) ?? "-"] : []),
      ...(protocols ? [sanitizeForTerminal(s.protocol ?? "-")] : []),
      s.started === undefined ? "-" : s.started.slice(0, 16).replace("T", " "),
      String(s.turns),
      String(s.events),
      size(s.bytes),
      s.largest === undefined ? "-" : largestCell(s.largest),
      s.overThreshold === 0 ? "no" : `yes (${s.overThreshold})`,
      s.results.files === 0 ? "-" : `${size(s.results.bytes)} (${plural(s.results.files, "file")})`,
    ]);
  }
  const over = summaries.filter((s) => s.overThreshold > 0);
  let footer = `${plural(summaries.length, "conversation")} in ${where}.\n`;
  if (over.length > 0) {
    footer +=
      `${plural(over.length, "conversation")} still ${
        over.length === 1 ? "sends" : "send"
      } the model responses over today's size_threshold.\n` +
      repairHint(over.map((s) => s.id), { tools: "cap" }, workspace);
  }
  return formatTable(rows) + "\n" + footer;
}

/** The largest response as sent, and its size in the log when a compaction changed it. */
function largestCell(largest: NonNullable<ConversationSummary["largest"]>): string {
  const size = (bytes: number) => ByteSize.fromBytes(bytes).human();
  const cell = `${size(largest.sentBytes)} ${sanitizeForTerminal(largest.tool || "?")}`;
  return largest.sentBytes === largest.bytes ? cell : `${cell} (${size(largest.bytes)} in the log)`;
}

/** The `spillway serve` client the conversation belongs to, when its id names one (or its start does). */
function clientOf(summary: ConversationSummary): string | undefined {
  return ClientConversationId.clientOf(summary.id) ??
    (summary.client === undefined ? undefined : sanitizeForTerminal(summary.client));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function asJson(summaries: readonly ConversationSummary[], where: string): string {
  const conversations = summaries.map((s) => ({
    id: s.id,
    client: clientOf(s) ?? null,
    protocol: s.protocol ?? null,
    location: s.location,
    started: s.started ?? null,
    turns: s.turns,
    events: s.events,
    bytes: s.bytes,
    largest_response: s.largest === undefined ? null : {
      id: s.largest.id,
      tool: s.largest.tool,
      bytes: s.largest.bytes,
      sent_bytes: s.largest.sentBytes,
    },
    responses_over_threshold: s.overThreshold,
    full_results: s.results,
    warnings: s.warnings,
  }));
  return JSON.stringify({ conversations_dir: where, conversations }, null, 2) + "\n";
}
