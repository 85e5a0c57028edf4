/**
 * `spillway conversation compact`: repairs conversations that carry
 * oversized tool responses, without calling a model. It appends one
 * `compaction` event per conversation; the provider view applies it, so the
 * model is sent a stub (`strip-responses`) or a cut (`cap`) in place of each
 * oversized response, while the log keeps every original byte. A
 * conversation open in another process is refused (its writer lock), never
 * changed under it.
 *
 * @module
 */

import { plural } from "../terminal/plural.ts";
import { sanitizeForTerminal } from "../terminal/sanitize.ts";
import { ByteSize } from "../size/byte_size.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import type { StreamEvent } from "../stream/events.ts";
import type { Command } from "./command.ts";
import type { CommandIo } from "./command_io.ts";
import { CONFIG_FLAGS } from "./_common_flags.ts";
import { type CompactionPlan, planCap, planStrip } from "./_compaction_plan.ts";
import { loadConfigOrReport } from "./_config_problems.ts";
import type { ParsedFlags } from "./_flags.ts";
import { formatTable } from "./_table.ts";
import { openWorkspace, type Workspace } from "./_workspace.ts";
import type { SpillwayConfig } from "../config/spillway_config.ts";

/** `--over` below this would swap responses for stubs hardly smaller than them. */
const MIN_OVER_BYTES = 1024;

/** `spillway conversation compact`. */
export const conversationCompactCommand: Command = {
  name: "conversation compact",
  summary: "repair conversations: stub or cut oversized tool responses",
  usage: "spillway conversation compact --tools=strip-responses --over SIZE (ID... | --all)\n" +
    "       spillway conversation compact --tools=cap (ID... | --all) [--dry-run]",
  description: `Appends one compaction event to each conversation named (or every one with
--all), without calling a model. The provider view applies it: from then on
the model is sent, in place of each changed tool response:

  --tools=strip-responses --over SIZE
      a stub naming the tool and the recorded size, for every response of
      SIZE or more (e.g. --over 1MB; at least 1KB);
  --tools=cap
      the response cut to its tool's size_threshold in today's
      configuration, and each batch to the 2 MiB batch ceiling, exactly as
      new responses are capped.

The log keeps every original byte. Running the same compaction again
changes nothing. --dry-run prints what would change and writes nothing. A
conversation open in another process (a running query) is refused and left
untouched. Then \`spillway query --conversation ID\` continues it.

Exits 0 when every conversation was compacted or needed nothing, 1 when one
could not be (the reason is printed), 2 on a usage error.`,
  flags: [
    ...CONFIG_FLAGS,
    {
      name: "tools",
      kind: "string",
      valueName: "MODE",
      choices: ["strip-responses", "cap"],
      help: "strip-responses (with --over) or cap",
    },
    {
      name: "over",
      kind: "string",
      valueName: "SIZE",
      help: "with strip-responses: stub responses of SIZE or more, e.g. 1MB",
    },
    { name: "all", kind: "boolean", help: "every conversation of the workspace" },
    { name: "dry-run", kind: "boolean", help: "print what would change; write nothing" },
  ],
  positionals: "[ID...]",
  run,
};

type Planner = (events: readonly StreamEvent[]) => CompactionPlan;

async function run(flags: ParsedFlags, io: CommandIo): Promise<number> {
  const plan = plannerFrom(flags, io);
  // The configuration says where the conversations are (and, for cap, today's thresholds).
  const config = await loadConfigOrReport(flags, io);
  if (config === undefined) return 1;
  const workspace = openWorkspace(flags, io, config);
  try {
    return await compact(flags, io, workspace, plan(config));
  } finally {
    await workspace.close();
  }
}

async function compact(
  flags: ParsedFlags,
  io: CommandIo,
  workspace: Workspace,
  { planner, nothing, verb }: { planner: Planner; nothing: string; verb: string },
): Promise<number> {
  const known = await workspace.conversations.list();
  const ids = flags.boolean("all") ? known : flags.positionals;
  if (ids.length === 0 && !flags.boolean("all")) {
    throw usage(
      "name the conversations to compact (IDs, see `spillway conversation ls`) or pass --all",
    );
  }
  if (flags.boolean("all") && flags.positionals.length > 0) {
    throw usage("give conversation IDs or --all, not both");
  }
  const dryRun = flags.boolean("dry-run");
  let failed = 0;
  let changed = 0;
  for (const id of ids) {
    if (!known.includes(id)) {
      io.stderr(sanitizeForTerminal(
        `error: no conversation ${JSON.stringify(id)} in ${
          workspace.shown(workspace.conversations.where)
        } (see \`spillway conversation ls\`)\n`,
      ));
      failed++;
      continue;
    }
    try {
      const plan = await compactOne(workspace, id, planner, dryRun);
      if (plan.event === undefined) {
        io.stdout(`${id}: nothing to change (${nothing})\n`);
        continue;
      }
      changed++;
      io.stdout(formatPlan(id, plan, dryRun ? `would be ${verb}` : verb));
    } catch (error) {
      if (!(error instanceof SpillwayError)) throw error;
      io.stderr(sanitizeForTerminal(`error: ${error.message}\n`));
      failed++;
    }
  }
  if (ids.length === 0) io.stdout("No conversations to compact.\n");
  if (dryRun) io.stdout("Dry run: nothing was written.\n");
  else if (changed > 0) {
    io.stdout("The logs keep every original byte; `spillway conversation show ID` shows it.\n");
  }
  return failed > 0 ? 1 : 0;
}

/** Plans, and unless `dryRun`, appends the event under the conversation's writer lock. */
async function compactOne(
  workspace: Workspace,
  id: string,
  planner: Planner,
  dryRun: boolean,
): Promise<CompactionPlan> {
  if (dryRun) return planner((await workspace.conversations.read(id)).events);
  const stream = await workspace.conversations.open(id);
  try {
    const plan = planner((await stream.load()).events);
    if (plan.event !== undefined) {
      await stream.append([plan.event]);
      await stream.flush();
    }
    return plan;
  } finally {
    await stream.close();
  }
}

/** The planner the flags ask for, once the configuration is known; a usage error at once. */
function plannerFrom(
  flags: ParsedFlags,
  io: CommandIo,
): (config: SpillwayConfig) => { planner: Planner; nothing: string; verb: string } {
  const mode = flags.string("tools");
  const over = flags.string("over");
  const now = () => (io.now?.() ?? new Date()).toISOString();
  if (mode === undefined) {
    throw usage("missing --tools (--tools=strip-responses --over SIZE, or --tools=cap)");
  }
  if (mode === "cap") {
    if (over !== undefined) throw usage("--over goes with --tools=strip-responses only");
    return (config) => ({
      planner: (events) => planCap(events, config, now()),
      nothing: "every response is within today's size_threshold and the batch ceiling",
      verb: "cut",
    });
  }
  if (over === undefined) {
    throw usage("--tools=strip-responses needs --over SIZE (e.g. --over 1MB)");
  }
  let size: ByteSize;
  try {
    size = ByteSize.parse(over);
  } catch (error) {
    throw usage(`--over: ${(error as Error).message}`);
  }
  if (size.bytes < MIN_OVER_BYTES) {
    throw usage(
      `--over ${JSON.stringify(over)} is below the 1KB minimum (a stub itself is about 100 bytes)`,
    );
  }
  return () => ({
    planner: (events) => planStrip(events, size.bytes, now()),
    nothing: `no response the model is sent is ${size.human()} or more`,
    verb: "stripped",
  });
}

/** `ID: N responses stripped (…)` and one line per response. */
export function formatPlan(id: string, plan: CompactionPlan, verb: string): string {
  const size = (bytes: number) => ByteSize.fromBytes(bytes).human();
  const saved = plan.changes.reduce((sum, c) => sum + c.fromBytes - c.toBytes, 0);
  const rows = plan.changes.map((change) => [
    sanitizeForTerminal(change.id),
    sanitizeForTerminal(change.tool || "?"),
    `${size(change.fromBytes)} → ${size(change.toBytes)}`,
    change.cause ?? "",
  ]);
  return `${id}: ${plural(plan.changes.length, "response")} ${verb} ` +
    `(the model is sent ${size(saved)} less)\n${formatTable(rows)}`;
}

function usage(message: string): SpillwayError {
  return new SpillwayError("usage", message);
}
