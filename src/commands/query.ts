/**
 * `spillway query "prompt"`: runs one turn against the configured model (or
 * a scripted one) with the configured tools, shows the answer as it streams
 * in, the calls, their results and the notices, and says where the
 * conversation was written and what it cost.
 *
 * @module
 */

import { join, resolve } from "node:path";
import type { InspectionEvent } from "xstate";
import { loadConfig } from "../config/load_config.ts";
import type { SpillwayConfig } from "../config/spillway_config.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import { StopSignals } from "../terminal/stop_signals.ts";
import { plural } from "../terminal/plural.ts";
import { sanitizeForTerminal } from "../terminal/sanitize.ts";
import { enableVerboseLogging } from "../terminal/verbose_logging.ts";
import { TerminalPrompter } from "../terminal/terminal_prompter.ts";
import { TerminalReporter } from "../terminal/terminal_reporter.ts";
import { TerminalSpinner } from "../terminal/terminal_spinner.ts";
import type { OpenedStore } from "../runtime/open_store.ts";
import type { Provider } from "../provider/provider.ts";
import { UsageTally } from "../provider/usage_tally.ts";
import {
  createRuntime,
  DEFAULT_WORKSPACE,
  type QueryResult,
  type Runtime,
} from "../runtime/create_runtime.ts";
import type { Inspection } from "../inspector/inspection.ts";
import { openStore } from "../runtime/open_store.ts";
import { newConversationId } from "../stream/new_conversation_id.ts";
import type { Command } from "./command.ts";
import type { CommandIo } from "./command_io.ts";
import { CONFIG_FLAGS, configOptionsFromFlags, MODEL_FLAG, OUTPUT_FLAGS } from "./_common_flags.ts";
import {
  INSPECT_FLAGS,
  type InspectionRequest,
  inspectionRequest,
  openInspection,
} from "./_inspection_flags.ts";
import type { ParsedFlags } from "./_flags.ts";
import { repairHint } from "./_repair_hint.ts";
import { printConfigProblems } from "./_config_problems.ts";
import { queryProvider } from "./_query_provider.ts";
import { keepWorkspacePrivate, shownPlace } from "./_workspace.ts";

/** `spillway query`. */
export const queryCommand: Command = {
  name: "query",
  summary: "run one turn: the model's tool calls, capped, recorded, delivered",
  usage:
    'spillway query [--workspace DIR] [--config FILE]... [--cfg KEY=VALUE]... [--model PROVIDER/MODEL | --script FILE] [--conversation ID] [--quiet] "prompt"',
  description: `Runs one turn: sends the prompt to the model, runs the tool calls it asks
for, caps every response (each tool's size_threshold, then the 2 MiB batch
ceiling), records the batch durably in the conversation stream, and only
then delivers it. Repeats until the model answers without tool calls.

The model is --model PROVIDER/MODEL (openai/… for OpenAI and every
compatible server such as Ollama, anthropic/… for Anthropic), else
assistant.model.id from the configuration; its answer is shown as it
streams in. --script FILE replays a TOML file of [[cycles]] instead (see
examples/demo/script.toml). Notices (one line on stderr per cut response)
are printed under --quiet too.

Ctrl-C, SIGTERM and SIGHUP cancel the running calls (local tools' process
groups are killed); the cancellations and the turn's end are recorded before
spillway exits.

Exits 0 when the turn finished, 1 when it failed (the reason is printed and
recorded in the stream), 2 on a usage error, and 128 + the signal's number
when a signal stopped it: 130 (Ctrl-C), 143 (SIGTERM), 129 (SIGHUP).`,
  flags: [
    ...CONFIG_FLAGS,
    MODEL_FLAG,
    { name: "script", kind: "string", valueName: "FILE", help: "replay a scripted model instead" },
    {
      name: "conversation",
      kind: "string",
      valueName: "ID",
      help: "continue this conversation (default: start a new one)",
    },
    ...INSPECT_FLAGS,
    ...OUTPUT_FLAGS,
  ],
  positionals: "[prompt...]",
  run,
};

async function run(flags: ParsedFlags, io: CommandIo): Promise<number> {
  const prompt = flags.positionals.join(" ").trim();
  if (prompt === "") throw new SpillwayError("usage", "missing the prompt");
  const model = flags.string("model");
  const options = configOptionsFromFlags(flags, io);
  let config: SpillwayConfig;
  try {
    config = await loadConfig(options);
  } catch (error) {
    if (printConfigProblems(error, io)) return 1;
    throw error;
  }
  const provider = await queryProvider(config, {
    scriptPath: flags.string("script"),
    model,
    cwd: io.cwd,
    env: io.env,
    notice: (text) => io.stderr(sanitizeForTerminal(`${text}\n`)),
  });
  const workspace = resolve(io.cwd, options.workspace ?? DEFAULT_WORKSPACE);
  await keepWorkspacePrivate(workspace, io);
  const stopLogging = await enableVerboseLogging(flags.count("verbose"), io.stderr);
  try {
    return await queryOnTerminal(prompt, {
      io,
      config,
      provider,
      workspace,
      configFiles: options.configFiles ?? [],
      conversationId: flags.string("conversation") ?? newConversationId(),
      quiet: flags.boolean("quiet"),
      inspect: inspectionRequest(flags),
    });
  } finally {
    await stopLogging();
  }
}

interface TerminalQuery {
  readonly io: CommandIo;
  readonly config: SpillwayConfig;
  readonly provider: Provider;
  readonly workspace: string;
  /** The `--config` files, as given: the repair hint names them. */
  readonly configFiles: readonly string[];
  readonly conversationId: string;
  readonly quiet: boolean;
  readonly inspect: InspectionRequest;
}

/**
 * The size suggested to `conversation compact --over` when a conversation
 * no longer fits the context window: responses this large or larger are
 * sent as a one-line stub from then on.
 */
const COMPACT_OVER = "32KB";

/** Runs the turn with the terminal as its host; returns the exit code. */
async function queryOnTerminal(prompt: string, query: TerminalQuery): Promise<number> {
  const { config, conversationId, quiet } = query;
  // SIGTERM and SIGHUP stop the turn the way Ctrl-C does; listening from the
  // start keeps them from killing the process while tools are starting.
  // An answer may be streaming in: its line is ended before the stop is reported.
  let breakLine = () => false;
  using stop = StopSignals.listen({
    onStop: (_signal, says) =>
      io.stderr(
        `${
          breakLine() ? "" : "\n"
        }${says}: cancelling; running calls get their cancellation response…\n`,
      ),
  });
  const terminal = bestEffortAfterHangup(query.io, stop);
  // A person at a terminal sees which tool is running (pipes and --quiet
  // never do), and output waits while a prompt is open.
  const spinner = new TerminalSpinner({
    write: terminal.stderr,
    colour: (query.io.env["NO_COLOR"] ?? "") === "",
    draw: !quiet && Deno.stderr.isTerminal(),
  });
  const io = spinner.wrap(terminal);
  // Warnings and errors quote outside values (tool names, server messages).
  const printError = (text: string) => io.stderr(sanitizeForTerminal(text));
  const reporter = new TerminalReporter({
    io,
    quiet,
    cwd: io.cwd,
    resultsDir: join(query.workspace, "results", conversationId),
    styleFor: (tool) => ({
      inlineResults: config.tool(tool).inlineResults(),
      resultsFileLink: config.tool(tool).resultsFileLink(),
      truncation: config.tool(tool).truncation(),
    }),
    spinner,
  });
  breakLine = () => reporter.breakLine();
  const usage = new UsageTally();
  // The conversations and stored outputs: the workspace's folders, or the database.
  const store = openStore(config, query.workspace, query.io.env);
  let runtime: Runtime;
  // Before the runtime starts: a file that cannot be written leaves nothing running.
  let inspection: Inspection | undefined;
  try {
    inspection = await openInspection(query.inspect, io);
    runtime = await startRuntime(query, store, {
      io,
      reporter,
      usage,
      terminal,
      spinner,
      printError,
    });
  } catch (error) {
    await inspection?.close();
    await store.close();
    throw error;
  }
  let result: QueryResult;
  try {
    // Stopped while starting: there is no turn to record.
    if (stop.signal.aborted) return stop.exitCode(1);
    result = await runtime.query(prompt, {
      conversationId,
      signal: stop.signal,
      ...(inspection === undefined
        ? {}
        : { inspect: (event) => inspection.observe(event as InspectionEvent) }),
    });
  } finally {
    spinner.stop();
    await inspection?.close();
    await runtime.close();
    await store.close();
  }
  return report(result, query, { io, reporter, usage, stop, printError });
}

/** What the terminal side of a query hands the runtime. */
interface TerminalParts {
  readonly io: CommandIo;
  readonly reporter: TerminalReporter;
  readonly usage: UsageTally;
  readonly terminal: CommandIo;
  readonly spinner: TerminalSpinner;
  readonly printError: (text: string) => void;
}

/** Starts the runtime with the terminal as its host. */
function startRuntime(
  query: TerminalQuery,
  store: OpenedStore,
  { io, reporter, usage, terminal, spinner, printError }: TerminalParts,
): Promise<Runtime> {
  return createRuntime({
    provider: query.provider,
    workspace: query.workspace,
    config: query.config,
    store: store.conversations,
    blobs: store.blobs,
    cwd: io.cwd,
    noticeSink: reporter,
    observer: {
      assistantText: (delta) => reporter.assistantText(delta),
      assistant: (message) => {
        usage.add(message.usage);
        reporter.assistant(message);
      },
      toolCallStarted: (call) => reporter.toolCallStarted(call),
      toolCallResult: (call, response) => reporter.toolCallResult(call, response),
    },
    warn: (message) => printError(`warning: ${message}\n`),
    // An upstream server's own stderr is outside text too.
    upstreamStderr: printError,
    // Prompts write past the held output: they are what the person answers now.
    ...(Deno.stdin.isTerminal()
      ? { prompter: new TerminalPrompter({ io: terminal, spinner }) }
      : {}),
  });
}

/** Prints how the turn ended and where it was recorded; returns the exit code. */
function report(
  result: QueryResult,
  query: TerminalQuery,
  { io, reporter, usage, stop, printError }: Omit<TerminalParts, "terminal" | "spinner"> & {
    readonly stop: StopSignals;
  },
): number {
  const { conversationId, quiet } = query;
  reporter.breakLine();
  for (const error of result.errors) printError(`error: ${error.message}\n`);
  const where = shownPlace(io.cwd, result.location);
  const spent = usage.describe();
  if (result.status === "failed") {
    printError(`The turn failed: ${result.reason ?? "unknown reason"}\n`);
    printError(
      `Conversation ${conversationId}${spent === undefined ? "" : ` (${spent})`}: ${where}\n`,
    );
    if (result.error?.details["kind"] === "context_window") {
      printError(
        repairHint([conversationId], { tools: "strip-responses", over: COMPACT_OVER }, {
          dir: query.workspace,
          cwd: io.cwd,
          configFiles: query.configFiles,
        }),
      );
    }
    return stop.exitCode(1);
  }
  const cuts = result.notices.length;
  const summary = [
    plural(result.cycles, "model request"),
    plural(cuts, "cut response"),
    ...(spent === undefined ? [] : [spent]),
  ].join(", ");
  io.stdout(
    sanitizeForTerminal(
      `${quiet ? "" : "\n"}Conversation ${conversationId} (${summary}): ${where}\n`,
    ),
  );
  return stop.exitCode(0);
}

/**
 * `io` whose writes are best effort once the terminal hung up (SIGHUP): a
 * closed terminal fails every write, and the turn must still record its
 * cancellations and `turn_end` and exit cleanly.
 */
function bestEffortAfterHangup(io: CommandIo, stop: StopSignals): CommandIo {
  const guard = (write: (text: string) => void) => (text: string) => {
    try {
      write(text);
    } catch (error) {
      if (stop.received !== "SIGHUP") throw error;
    }
  };
  return { ...io, stdout: guard(io.stdout), stderr: guard(io.stderr) };
}
