/**
 * This process and the processes it starts, the same on Deno and on Node:
 * its environment, folder and pid, child processes with piped stdio as web
 * streams, and signals. Deno's own API on Deno, `node:child_process` and
 * `node:process` on Node.
 *
 * @module
 */

import * as childProcess from "node:child_process";
import { constants } from "node:os";
import { Readable, Writable } from "node:stream";
import { DENO } from "./_deno.ts";

/** A signal spillway sends or listens for. */
export type SignalName = "SIGINT" | "SIGTERM" | "SIGHUP" | "SIGKILL";

/** How a child process ended. */
export interface ExitStatus {
  /** Whether it exited with code 0. */
  readonly success: boolean;
  /** Its exit code (128 + the signal's number when a signal ended it, as Deno reports). */
  readonly code: number;
  /** The signal that ended it, or null. */
  readonly signal: string | null;
}

/** A running child process with piped stdin, stdout and stderr. */
export interface ChildProcess {
  /** Its process id (the id of its group too when spawned `detached`). */
  readonly pid: number;
  /** Its stdin. */
  readonly stdin: WritableStream<Uint8Array>;
  /** Its stdout. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** Its stderr (when piped; read nothing from it otherwise). */
  readonly stderr: ReadableStream<Uint8Array>;
  /** Settles when it has exited and been reaped. */
  readonly status: Promise<ExitStatus>;
}

/** How {@linkcode spawnProcess} starts a program. */
export interface SpawnOptions {
  /** Its arguments. Default: none. */
  readonly args?: readonly string[];
  /** Its working folder. Default: this process's. */
  readonly cwd?: string;
  /** Variables set for it (on top of this process's, unless `clearEnv`). Default: none. */
  readonly env?: Readonly<Record<string, string>>;
  /** Start it with `env` only. Default: false. */
  readonly clearEnv?: boolean;
  /** Its own process group (and session), so a group kill reaches its children. Default: false. */
  readonly detached?: boolean;
  /**
   * Where its stderr goes: piped (the child's `stderr`), this process's
   * stderr, or nowhere. Default: `"piped"`.
   */
  readonly stderr?: "piped" | "inherit" | "null";
}

/**
 * Starts `command` (never through a shell) with piped stdio.
 *
 * @throws {Error} when it cannot start (not found, not executable, no such `cwd`): a Deno
 *   `NotFound`/`PermissionDenied`, or a Node error with `code` `ENOENT`/`EACCES`
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { spawnProcess } from "./processes.ts";
 * const child = await spawnProcess("cat", {});
 * const writer = child.stdin.getWriter();
 * await writer.write(new TextEncoder().encode("hi"));
 * await writer.close();
 * assert.equal(await new Response(child.stdout).text(), "hi");
 * await child.stderr.cancel();
 * assert.equal((await child.status).code, 0);
 * ```
 */
export function spawnProcess(command: string, options: SpawnOptions): Promise<ChildProcess> {
  if (DENO !== undefined) {
    try {
      return Promise.resolve(
        new DENO.Command(command, {
          args: [...(options.args ?? [])],
          ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
          ...(options.env === undefined ? {} : { env: { ...options.env } }),
          clearEnv: options.clearEnv ?? false,
          detached: options.detached ?? false,
          stdin: "piped",
          stdout: "piped",
          stderr: options.stderr ?? "piped",
        }).spawn(),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return spawnNode(command, options);
}

/** Node's name of each place stderr can go. */
const NODE_STDIO = { piped: "pipe", inherit: "inherit", null: "ignore" } as const;

function spawnNode(command: string, options: SpawnOptions): Promise<ChildProcess> {
  const env = options.clearEnv === true ? { ...options.env } : { ...process.env, ...options.env };
  const child = childProcess.spawn(command, [...(options.args ?? [])], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env,
    detached: options.detached ?? false,
    stdio: ["pipe", "pipe", NODE_STDIO[options.stderr ?? "piped"]],
  });
  const status = new Promise<ExitStatus>((resolve) => {
    child.once("close", (code, signal) => {
      resolve({ success: code === 0, code: code ?? 128 + signalNumber(signal), signal });
    });
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("spawn", () => {
      child.off("error", reject);
      // Writes after the child is gone fail quietly, as on Deno: its status says what happened.
      const { stdin, stdout } = child as {
        stdin: NodeJS.WritableStream;
        stdout: NodeJS.ReadableStream;
      };
      stdin.on("error", () => {});
      resolve({
        pid: child.pid!,
        stdin: Writable.toWeb(stdin as Writable) as WritableStream<Uint8Array>,
        stdout: Readable.toWeb(stdout as Readable) as ReadableStream<Uint8Array>,
        stderr: child.stderr === null
          ? new ReadableStream({ start: (controller) => controller.close() })
          : Readable.toWeb(child.stderr) as ReadableStream<Uint8Array>,
        status,
      });
    });
  });
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal === null ? 0 : (constants.signals[signal] ?? 0);
}

/**
 * Sends `signal` to process `pid` (a negative pid: its whole group).
 *
 * @throws {Error} when there is no such process (see `isNotFound`)
 */
export function killProcess(pid: number, signal: SignalName): void {
  if (DENO !== undefined) DENO.kill(pid, signal);
  else process.kill(pid, signal);
}

/** This process's id. */
export function processId(): number {
  return DENO === undefined ? process.pid : DENO.pid;
}

/** This process's environment variables, as a fresh object. */
export function environment(): Record<string, string> {
  if (DENO !== undefined) return DENO.env.toObject();
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** This process's working folder. */
export function currentDirectory(): string {
  return DENO === undefined ? process.cwd() : DENO.cwd();
}

/** Whether this is Windows, where process groups and POSIX signals do not exist. */
export function isWindows(): boolean {
  return DENO === undefined ? process.platform === "win32" : DENO.build.os === "windows";
}
