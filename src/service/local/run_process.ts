/**
 * Runs one command to completion in its own process group, with its input on
 * stdin, a deadline and an abort signal: the process half of a local tool
 * call. It knows nothing about MCP; {@linkcode LocalToolSource} turns its
 * outcome into a tool result.
 *
 * The command is spawned with `detached: true` (its own session and process
 * group, see {@linkcode killProcessGroup}), never through a shell. stdout and
 * stderr are read concurrently with the stdin write, so a tool that writes
 * 100 MB before reading its input cannot deadlock on a full pipe. Each stream
 * is collected into one {@linkcode ByteBuffer}, whose memory is about the
 * output's size; the caller owns the returned bytes and may free them
 * (`bytes.buffer.transferToFixedLength(0)`) once decoded. Or each stream goes
 * to a consumer a chunk at a time (`onStdout`, `onStderr`), which holds what
 * it likes.
 *
 * @module
 */

import { type ChildProcess, spawnProcess } from "../../platform/processes.ts";
import { ByteBuffer } from "../subprocess/byte_buffer.ts";
import { killProcessGroup } from "../subprocess/kill_process_group.ts";
import { releaseBytes } from "../subprocess/release_bytes.ts";
import { settlesWithin } from "../subprocess/settles_within.ts";
import { SYSTEM_CLOCK, type TimerClock } from "../timer_clock.ts";

/**
 * How long a process group gets between SIGTERM and SIGKILL, and how long its
 * output pipes may stay open after the group died (a process that escaped the
 * group can hold them) before we stop reading.
 */
export const KILL_GRACE_MS = 2_000;

/** Options of {@linkcode runProcess}. */
export interface RunProcessOptions {
  /** Working directory. Default: the current directory. */
  readonly cwd?: string;
  /** Variables added to the inherited environment (or the whole environment, with `clearEnv`). Default: none. */
  readonly env?: Readonly<Record<string, string>>;
  /** Whether the process gets `env` alone, nothing of this process's environment. Default: `false`. */
  readonly clearEnv?: boolean;
  /** Bytes written to the child's stdin, which is then closed. Default: empty. */
  readonly stdin?: Uint8Array;
  /** Deadline after which the group is killed and the outcome is `timed_out`. */
  readonly timeoutMs: number;
  /** The clock the deadline runs on. Default: {@linkcode SYSTEM_CLOCK}. */
  readonly clock?: TimerClock;
  /** SIGTERM → SIGKILL grace. Default: {@linkcode KILL_GRACE_MS}. */
  readonly killGraceMs?: number;
  /** Kills the group; the outcome then rejects with `signal.reason` at once. */
  readonly signal?: AbortSignal;
  /**
   * Takes stdout a chunk at a time instead of collecting it (the outcome's
   * `stdout` is then empty). The next chunk is read once the promise
   * settles, so a slow consumer slows the tool down rather than filling
   * memory. It must not reject. Default: stdout is collected.
   */
  readonly onStdout?: (chunk: Uint8Array) => Promise<void>;
  /** Takes stderr a chunk at a time, as `onStdout` does stdout. Default: stderr is collected. */
  readonly onStderr?: (chunk: Uint8Array) => Promise<void>;
}

/** How a process run ended. */
export type ProcessOutcome =
  /** The process exited by itself; `signal` is set when a signal ended it. */
  | {
    readonly kind: "exited";
    readonly code: number;
    readonly signal: string | null;
    readonly stdout: Uint8Array;
    readonly stderr: Uint8Array;
  }
  /** The deadline passed; the group was killed. Output is what arrived before. */
  | { readonly kind: "timed_out"; readonly stdout: Uint8Array; readonly stderr: Uint8Array }
  /** The command could not be spawned (not found, not executable, bad cwd). */
  | { readonly kind: "not_started"; readonly error: Error };

/** A process run in progress. */
export interface RunningProcess {
  /** Settles with the outcome, or rejects with the abort reason as soon as the signal aborts. */
  readonly outcome: Promise<ProcessOutcome>;
  /**
   * Resolves once the process was reaped, its pipes closed and every timer
   * cleared, whichever way the run ended. Never rejects. Await it before
   * shutting down: after an abort it outlives `outcome` by up to the grace.
   */
  readonly settled: Promise<void>;
}

/**
 * Spawns `argv` in its own process group and runs it to an outcome.
 *
 * @param argv the program and its arguments (never interpreted by a shell)
 * @param options stdin, deadline, signal, cwd and environment
 * @returns the running process
 * @throws {TypeError} when `argv` is empty
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runProcess } from "./run_process.ts";
 * const run = runProcess(["cat"], { stdin: new TextEncoder().encode("hi"), timeoutMs: 5_000 });
 * const outcome = await run.outcome;
 * await run.settled;
 * assert.equal(outcome.kind, "exited");
 * if (outcome.kind === "exited") assert.equal(new TextDecoder().decode(outcome.stdout), "hi");
 * ```
 */
export function runProcess(argv: readonly string[], options: RunProcessOptions): RunningProcess {
  const [command, ...args] = argv;
  if (command === undefined) throw new TypeError("runProcess: argv must name a program");
  const { signal } = options;
  if (signal?.aborted) {
    return { outcome: Promise.reject(signal.reason), settled: Promise.resolve() };
  }
  const started = spawnProcess(command, {
    args,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
    clearEnv: options.clearEnv ?? false,
    detached: true,
  }).then(
    (child) => run(child, options),
    (error): RunningProcess => {
      const cause = error instanceof Error ? error : new Error(String(error));
      return {
        outcome: Promise.resolve({ kind: "not_started", error: cause }),
        settled: Promise.resolve(),
      };
    },
  );
  return {
    outcome: started.then((running) => running.outcome),
    settled: started.then((running) => running.settled),
  };
}

/** Runs a spawned `child` to its outcome. */
function run(child: ChildProcess, options: RunProcessOptions): RunningProcess {
  const { signal } = options;
  const pid = child.pid;
  const graceMs = options.killGraceMs ?? KILL_GRACE_MS;
  const stdoutReader = child.stdout.getReader();
  const stderrReader = child.stderr.getReader();
  const stdinWriter = child.stdin.getWriter();
  const stdout = readAll(stdoutReader, options.onStdout);
  const stderr = readAll(stderrReader, options.onStderr);
  const stdinDone = writeAll(stdinWriter, options.stdin ?? new Uint8Array());
  const status = child.status.then((s) => {
    // The leader is gone: whatever it left running in its group is an
    // orphan nobody will reap or read. Sweep it so its pipes close too.
    killProcessGroup(pid, "SIGKILL");
    return s;
  });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      killProcessGroup(pid, "SIGTERM");
      if (!(await settlesWithin(status, graceMs))) killProcessGroup(pid, "SIGKILL");
      await status;
      // Bounded: a process that escaped the group could hold stdin unread.
      await settlesWithin(stdinWriter.abort(), graceMs);
      if (!(await settlesWithin(Promise.all([stdout, stderr]), graceMs))) {
        await Promise.all([stdoutReader.cancel(), stderrReader.cancel()]).catch(() => {});
      }
    })();
    return stopping;
  };

  const clock = options.clock ?? SYSTEM_CLOCK;
  let timer: { readonly id: unknown } | undefined;
  let timedOut = false;
  let onAbort: (() => void) | undefined;
  const finished = Promise.all([status, stdout, stderr, stdinDone]);
  const outcome = new Promise<ProcessOutcome>((resolve, reject) => {
    onAbort = () => {
      void stop();
      reject(signal?.reason);
    };
    // It may have aborted while the process was starting.
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    timer = {
      id: clock.setTimeout(() => {
        timer = undefined;
        timedOut = true;
        void stop().then(async () => {
          resolve({ kind: "timed_out", stdout: await stdout, stderr: await stderr });
        });
      }, options.timeoutMs),
    };
    void finished.then(([s, out, err]) => {
      // After the deadline the exit is our own kill: the outcome is the timeout.
      if (timedOut) return;
      resolve({ kind: "exited", code: s.code, signal: s.signal, stdout: out, stderr: err });
    });
  });

  const settled = (async () => {
    const aborted = await outcome.then(() => false, () => true);
    if (timer !== undefined) clock.clearTimeout(timer.id);
    if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
    const [, out, err] = await finished;
    if (stopping !== undefined) await stopping;
    if (aborted) {
      // Nobody will read the output of an aborted run.
      releaseBytes(out);
      releaseBytes(err);
    }
  })();
  return { outcome, settled };
}

/**
 * Reads a stream to its end (or cancellation) into one buffer. Each chunk is
 * freed as soon as it is copied: a 100 MB output arrives as ~1,600 chunks
 * whose memory would otherwise linger until the next GC.
 */
async function readAll(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  consume?: (chunk: Uint8Array) => Promise<void>,
): Promise<Uint8Array> {
  const output = new ByteBuffer();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (consume === undefined) output.append(value);
      else await consume(value);
      releaseBytes(value);
    }
  } catch {
    // A pipe error ends the output; what arrived before it is kept.
  }
  return output.bytes();
}

/** Writes `bytes` and closes stdin; a child that exits without reading is not an error. */
async function writeAll(writer: WritableStreamDefaultWriter<Uint8Array>, bytes: Uint8Array) {
  try {
    if (bytes.byteLength > 0) await writer.write(bytes);
    await writer.close();
  } catch {
    // EPIPE or an abort by stop(): the child no longer wants its input.
  }
}
