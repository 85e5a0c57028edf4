/**
 * The `local` tool source: tools that are argv commands from the config
 * (`command = ["cargo", "test"]`). A call spawns the command in its own
 * process group, never through a shell; the arguments arrive as JSON on
 * stdin and in `SPILLWAY_TOOL_ARGUMENTS`, so they are never interpolated into
 * a command line. stdout is the content; a non-zero exit, a signal, a
 * timeout or a command that cannot start is an `isError` result the
 * assistant can read. The output is not capped here: the Host caps it at
 * phase end. Given an output sink, stdout and stderr each stream through an
 * {@linkcode OutputCollector}: a large output goes to the sink's file and
 * only a window of it stays in memory, whatever its size. stderr is read
 * only for a failure, whose text is the status, stderr, then stdout.
 *
 * @module
 */

import { SpillwayError } from "../../errors/spillway_error.ts";
import {
  type ToolCallOptions,
  type ToolDefinition,
  ToolLostError,
  type ToolResult,
  type ToolSource,
} from "../tool_source.ts";
import { unknownToolError } from "../tool_source_faults.ts";
import { DEFAULT_TOOL_TIMEOUT_MS, requireTimeoutMs, timedOutText } from "../tool_timeout.ts";
import { SYSTEM_CLOCK, type TimerClock } from "../timer_clock.ts";
import { KILL_GRACE_MS, type ProcessOutcome, runProcess } from "./run_process.ts";
import { collectedResult, OutputCollector } from "../output_collector.ts";
import type { OutputSink } from "../output_sink.ts";
import * as files from "../../platform/files.ts";
import { isNotFound, isPermissionDenied } from "../../platform/file_errors.ts";

/**
 * The largest arguments JSON also passed in `SPILLWAY_TOOL_ARGUMENTS`: 64 KiB.
 * Linux refuses to start a process with one environment string over 128 KiB;
 * above this size the variable is set to `""` and stdin alone carries the
 * arguments.
 */
export const MAX_ENV_ARGUMENTS_BYTES = 64 * 1024;

/** One configured local tool. */
export interface LocalToolSpec {
  /** The tool's name. */
  readonly name: string;
  /** What the assistant reads about the tool. Default: `Runs \`<argv>\`.` */
  readonly description?: string;
  /** The program and its fixed arguments (argv). Never run through a shell. */
  readonly command: readonly string[];
  /** Deadline in milliseconds, after which the group is killed. Default: {@linkcode DEFAULT_TOOL_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  /** Working directory. Default: the runtime's current directory. */
  readonly cwd?: string;
  /** Variables added to the inherited environment (or the whole environment, with `clearEnv`). Default: none. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Whether the command gets `env` (and the two `SPILLWAY_TOOL_*` variables)
   * alone, nothing of spillway's own environment. Default: `false`.
   */
  readonly clearEnv?: boolean;
  /**
   * Whether a stdout too large to hold is scanned as JSON as it streams (the
   * tool's truncation is `json` or `auto`: the Host says so). Default: not.
   */
  readonly scansJson?: boolean;
}

/** Options of {@linkcode LocalToolSource}. */
export interface LocalToolSourceOptions {
  /** The tools. Names must be unique. */
  readonly tools: readonly LocalToolSpec[];
  /** SIGTERM → SIGKILL grace on timeout, abort or close. Default: {@linkcode KILL_GRACE_MS}. */
  readonly killGraceMs?: number;
  /** The clock the tools' time limits run on. Default: {@linkcode SYSTEM_CLOCK}. */
  readonly clock?: TimerClock;
}

/** The arguments schema every local tool advertises: any JSON object. */
const PERMISSIVE_INPUT_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: "object",
  additionalProperties: true,
});

/**
 * Runs configured argv commands as tools.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LocalToolSource } from "./local_tool_source.ts";
 * const source = new LocalToolSource({ tools: [{ name: "hello", command: ["echo", "hello"] }] });
 * const result = await source.call("hello", {}, { signal: new AbortController().signal });
 * assert.deepEqual(result.content, [{ type: "text", text: "hello\n" }]);
 * await source.close();
 * ```
 */
export class LocalToolSource implements ToolSource {
  /** Always `"local"`. */
  readonly name = "local";
  readonly #tools: ReadonlyMap<string, LocalToolSpec>;
  readonly #killGraceMs: number;
  readonly #clock: TimerClock;
  readonly #closing = new AbortController();
  readonly #running = new Set<Promise<void>>();

  /**
   * Validates the tool specs; nothing is spawned until a call.
   *
   * @param options the tools and the kill grace
   * @throws {TypeError} when a tool has no name, an empty or non-string command, or a duplicate name
   * @throws {RangeError} when a timeout or the grace is not a positive integer
   */
  constructor(options: LocalToolSourceOptions) {
    const tools = new Map<string, LocalToolSpec>();
    for (const tool of options.tools) {
      validateSpec(tool);
      if (tools.has(tool.name)) throw new TypeError(`local tool \`${tool.name}\` is defined twice`);
      tools.set(tool.name, tool);
    }
    this.#tools = tools;
    this.#killGraceMs = options.killGraceMs ?? KILL_GRACE_MS;
    requirePositiveInteger("killGraceMs", this.#killGraceMs);
    this.#clock = options.clock ?? SYSTEM_CLOCK;
  }

  /** The configured tools, each accepting any JSON object. */
  list(): Promise<readonly ToolDefinition[]> {
    return Promise.resolve(
      [...this.#tools.values()].map((tool) => ({
        name: tool.name,
        description: tool.description ?? `Runs \`${tool.command.join(" ")}\`.`,
        inputSchema: PERMISSIVE_INPUT_SCHEMA,
      })),
    );
  }

  /**
   * Runs the tool's command once.
   *
   * @throws {SpillwayError} `tool_unavailable` for an unknown tool or a closed source
   * @throws {ToolLostError} when the source is closed during the call
   * @throws the signal's reason when `options.signal` aborts (the group is killed)
   */
  async call(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    options: ToolCallOptions,
  ): Promise<ToolResult> {
    const spec = this.#tools.get(tool);
    if (spec === undefined) throw unknownToolError(this.name, tool);
    if (this.#closing.signal.aborted) {
      throw new SpillwayError("tool_unavailable", `local tool \`${tool}\`: the source is closed`, {
        tool,
      });
    }
    const json = JSON.stringify(args);
    const stdin = new TextEncoder().encode(json);
    const timeoutMs = spec.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    // Only stdout can be a result that is JSON: a failure's text starts with its status.
    const stdout = new OutputCollector(options.output, { scansJson: spec.scansJson });
    const stderr = new OutputCollector(options.output);
    const run = runProcess(spec.command, {
      ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
      env: {
        ...spec.env,
        SPILLWAY_TOOL_NAME: spec.name,
        SPILLWAY_TOOL_ARGUMENTS: stdin.byteLength <= MAX_ENV_ARGUMENTS_BYTES ? json : "",
      },
      clearEnv: spec.clearEnv ?? false,
      stdin,
      timeoutMs,
      clock: this.#clock,
      killGraceMs: this.#killGraceMs,
      signal: AbortSignal.any([options.signal, this.#closing.signal]),
      onStdout: (chunk) => stdout.push(chunk),
      onStderr: (chunk) => stderr.push(chunk),
    });
    this.#running.add(run.settled);
    void run.settled.then(() => this.#running.delete(run.settled));
    let outcome: ProcessOutcome;
    try {
      outcome = await run.outcome;
    } catch (error) {
      // Nobody will read this output: drop its files once the pipes are drained.
      void run.settled.then(() => Promise.all([stdout.abort(), stderr.abort()]));
      throw error;
    }
    return await toResult(spec, timeoutMs, outcome, { stdout, stderr, sink: options.output });
  }

  /** Kills every running call's process group (its `call()` rejects with {@linkcode ToolLostError}) and waits until all are reaped. */
  async close(): Promise<void> {
    if (!this.#closing.signal.aborted) {
      this.#closing.abort(new ToolLostError("the local tool source was closed during the call"));
    }
    while (this.#running.size > 0) await Promise.all(this.#running);
  }
}

/** A call's two output streams, and where a large response goes. */
interface CallOutput {
  readonly stdout: OutputCollector;
  readonly stderr: OutputCollector;
  readonly sink: OutputSink | undefined;
}

/** Turns a process outcome, and its output, into the tool's result. */
async function toResult(
  spec: LocalToolSpec,
  timeoutMs: number,
  outcome: ProcessOutcome,
  output: CallOutput,
): Promise<ToolResult> {
  if (outcome.kind === "not_started") {
    return failure(await describeSpawnFailure(spec, outcome.error));
  }
  if (outcome.kind === "timed_out") return await failureResult(timedOutText(timeoutMs), output);
  if (outcome.signal !== null) {
    return await failureResult(`killed by signal ${outcome.signal}`, output);
  }
  if (outcome.code !== 0) return await failureResult(`exit code ${outcome.code}`, output);
  // A success's stderr is not part of its result.
  await output.stderr.abort();
  return collectedResult(await output.stdout.finish(), false);
}

function failure(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * A failure's result: what happened, then stderr (usually the reason), then
 * stdout under its label. Each part is appended from its own collector, so a
 * huge stderr is no more held than a huge stdout.
 */
async function failureResult(headline: string, output: CallOutput): Promise<ToolResult> {
  const { stdout, stderr } = output;
  await Promise.all([stdout.end(), stderr.end()]);
  const text = new OutputCollector(output.sink);
  try {
    await text.pushText(headline);
    const hasStderr = stderr.bytes > 0;
    if (hasStderr) {
      await text.pushText("\n\nstderr:\n");
      await stderr.appendTo(text);
    }
    if (stdout.bytes > 0) {
      await text.pushText(`${hasStderr && stderr.endsWithNewline ? "\n" : "\n\n"}stdout:\n`);
      await stdout.appendTo(text);
    }
    return collectedResult(await text.finish(), true);
  } catch (error) {
    await Promise.all([text.abort(), stdout.abort(), stderr.abort()]);
    throw error;
  }
}

async function describeSpawnFailure(spec: LocalToolSpec, error: Error): Promise<string> {
  const program = spec.command[0] ?? "";
  if (isNotFound(error)) {
    if (spec.cwd !== undefined && !(await isDirectory(spec.cwd))) {
      return `cannot run \`${program}\`: working directory \`${spec.cwd}\` does not exist`;
    }
    return `command not found: \`${program}\``;
  }
  if (isPermissionDenied(error)) {
    return `cannot run \`${program}\`: permission denied (${error.message})`;
  }
  return `cannot run \`${program}\`: ${error.message}`;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await files.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

function validateSpec(spec: LocalToolSpec): void {
  if (typeof spec.name !== "string" || spec.name === "") {
    throw new TypeError(
      `local tool name must be a non-empty string, got ${JSON.stringify(spec.name)}`,
    );
  }
  const { command } = spec;
  if (
    !Array.isArray(command) || command.length === 0 ||
    !command.every((part) => typeof part === "string") || command[0] === ""
  ) {
    throw new TypeError(
      `local tool \`${spec.name}\`: command must be a non-empty array of strings (argv), got ${
        JSON.stringify(command)
      }`,
    );
  }
  if (spec.timeoutMs !== undefined) requireTimeoutMs(`${spec.name}.timeoutMs`, spec.timeoutMs);
}

function requirePositiveInteger(what: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`${what} must be a positive integer of milliseconds, got ${value}`);
  }
}
