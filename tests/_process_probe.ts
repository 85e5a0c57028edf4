/**
 * Test helper: a named pipe (FIFO) that the processes under test hold open,
 * so a test can wait for them as events instead of polling or sleeping.
 * A tool's command opens it as file descriptor 3 (`exec 3>"$PROBE"`) and
 * writes its pid (`echo $$ >&3`); every process it starts inherits the
 * descriptor. The probe counts a start when the first line arrives and a
 * stop when the pipe reaches end-of-file, which happens only once every
 * process holding it is gone: the whole group, grandchildren included.
 *
 * One run at a time: after a stop the probe reopens the pipe for the next.
 *
 * @module
 */

import { join } from "node:path";
import { settlesWithin } from "../src/service/subprocess/settles_within.ts";
import { Milestones } from "../src/testing/tool_source_contract.ts";

/** How long a release waits for the listener before it opens the FIFO again. */
const RELEASE_RETRY_MS = 100;

/** The shell prelude a command runs first, with the probe's path as `$1`. */
export const HOLD_PROBE = 'exec 3>"$1"; echo $$ >&3';

/** A FIFO and the counts of the runs that held it. */
export class ProcessProbe implements AsyncDisposable {
  /** The FIFO's path: pass it to the command as `$1`. */
  readonly path: string;
  /** Runs that wrote their first line. */
  readonly starts = new Milestones();
  /** Runs whose every process is gone (end-of-file). */
  readonly stops = new Milestones();
  /** Every pid written, in order, as soon as its line arrives. */
  readonly pids: number[] = [];
  /** One per pid written: a test waits for the processes it needs to be running. */
  readonly lines = new Milestones();
  readonly #dir: string;
  #closing = false;
  #reading: Promise<void> | undefined;

  private constructor(dir: string) {
    this.#dir = dir;
    this.path = join(dir, "probe");
  }

  /** Makes the FIFO in a temporary directory and starts listening. */
  static async create(): Promise<ProcessProbe> {
    const dir = await Deno.makeTempDir({ prefix: "spillway_probe_" });
    const probe = new ProcessProbe(dir);
    const made = await new Deno.Command("mkfifo", { args: [probe.path] }).output();
    if (!made.success) throw new Error(`mkfifo ${probe.path} failed`);
    probe.#reading = probe.#listen();
    return probe;
  }

  async #listen(): Promise<void> {
    const decoder = new TextDecoder();
    while (!this.#closing) {
      // Opening blocks until a writer opens the other end.
      const file = await Deno.open(this.path, { read: true });
      let pending = "";
      let started = false;
      for await (const chunk of file.readable) {
        pending += decoder.decode(chunk, { stream: true });
        const lines = pending.split("\n");
        pending = lines.pop() ?? "";
        const written = lines.filter((line) => line.trim() !== "").map(Number);
        this.pids.push(...written);
        for (const _ of written) this.lines.add();
        if (!started && lines.length > 0) {
          started = true;
          this.starts.add();
        }
      }
      if (started) this.stops.add();
    }
  }

  /** Stops listening and removes the FIFO. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.#closing = true;
    // Release a listener that waits in open() by being its writer once.
    // Read-write never blocks on a FIFO (write-only would, with no reader).
    // Again while it still waits: the open may have come before the
    // listener's own (Node's thread pool runs them in any order).
    do {
      const writer = await Deno.open(this.path, { read: true, write: true });
      writer.close();
    } while (!await settlesWithin(this.#reading ?? Promise.resolve(), RELEASE_RETRY_MS));
    await Deno.remove(this.#dir, { recursive: true });
  }
}

/**
 * Whether `pid` names a process, by sending it SIGCONT (harmless to a
 * running process). Reading `/proc/<pid>` would need `--allow-all`, which
 * `deno task test` does not grant. A zombie counts as alive; the processes
 * checked here are reaped by whoever waited for them before the check.
 */
export function isAlive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
