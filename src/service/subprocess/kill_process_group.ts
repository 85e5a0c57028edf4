/**
 * Signals a whole process group: the way spillway stops a local tool or an
 * upstream MCP server together with every process it started.
 *
 * Children are spawned with `Deno.Command`'s `detached: true`, which on Unix
 * runs `setsid()` in the child before `exec`: the child leads a new session
 * and process group whose id is its pid. (We checked `/proc/<pid>/stat` on
 * Deno 2.9: `pgrp == session == pid`.) This needs no external `setsid`
 * binary, no shell, and has no window in which the child runs outside its
 * group. `Deno.kill(-pgid, signal)` then reaches the child, its shell
 * pipelines and their background jobs at once. Processes that deliberately
 * leave the group (their own `setsid`, double-forking daemons) escape it, as
 * they would from any supervisor that does not use cgroups.
 *
 * @module
 */

import { isNotFound } from "../../platform/file_errors.ts";
import { isWindows, killProcess, type SignalName } from "../../platform/processes.ts";

/**
 * Sends `signal` to the process group led by `pid` (on Windows, which has no
 * process groups, to the process itself). A group that is already empty is
 * not an error. Only the group is signalled, never a bare pid: after the
 * leader was reaped, its pid is not reused while members of its group live,
 * so signalling the group reaches the leftovers and nothing else (short of
 * an unrelated process reusing the pid and leading a group of its own).
 *
 * @param pid the group leader's pid (the pid of a child spawned with `detached: true`)
 * @param signal the signal to send
 * @returns whether any process was signalled
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { killProcessGroup } from "./kill_process_group.ts";
 * const child = new Deno.Command("sleep", { args: ["30"], detached: true }).spawn();
 * assert.equal(killProcessGroup(child.pid, "SIGKILL"), true);
 * assert.equal((await child.status).signal, "SIGKILL");
 * assert.equal(killProcessGroup(child.pid, "SIGKILL"), false);
 * ```
 */
export function killProcessGroup(pid: number, signal: SignalName): boolean {
  try {
    killProcess(isWindows() ? pid : -pid, signal);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}
