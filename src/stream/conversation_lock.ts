/**
 * One writer per conversation across processes. Every writer of a file
 * conversation (a `query` turn, `conversation compact`) holds an exclusive
 * advisory lock on `<conversation>/writer.lock` while its stream is open, so
 * a second process is refused with a clear error instead of interleaving
 * appends or compacting a conversation mid-turn. The operating system drops
 * the lock when its holder dies (even by SIGKILL), so a crash never leaves a
 * conversation locked. Readers (`conversation ls/show`) take no lock: the
 * log is append-only and a torn last line is skipped on load.
 *
 * Inside one process, handles of the same conversation share the lock (the
 * file store already queues their operations in order).
 *
 * A lock is one open file description, and a process that spawns a child
 * lends the child a copy of every descriptor between fork and exec. A lock
 * this process just released can therefore still be held, for that moment,
 * by a child of its own: when the holder's note names this process, the lock
 * is retried briefly instead of refused.
 *
 * @module
 */

import { join } from "node:path";
import { SpillwayError } from "../errors/spillway_error.ts";
import * as files from "../platform/files.ts";
import type { FileHandle } from "../platform/file_handle.ts";
import { processId } from "../platform/processes.ts";

/** The lock file inside a conversation's folder. */
export const LOCK_FILE = "writer.lock";

/** A held lock; release it once. */
export interface ConversationLock {
  /** Drops this holder's share; the lock is released with the last one. */
  release(): void;
}

interface Shared {
  readonly taking: Promise<FileHandle>;
  holders: number;
}

/**
 * How long a lock whose note names this process is retried: a spawned
 * child execs (dropping its copy of our descriptors) within milliseconds.
 */
export const OWN_COPY_RETRY_MS = 2_000;

/** Locks held (or being taken) by this process, by lock file path. */
const held = new Map<string, Shared>();

/**
 * Takes the writer lock of the conversation whose folder is `dir`.
 *
 * @param dir the conversation's folder (it must exist)
 * @param id the conversation id, for the error message
 * @throws {SpillwayError} `conversation_locked` when another process holds it
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { LOCK_FILE, lockConversation } from "./conversation_lock.ts";
 * const dir = await Deno.makeTempDir();
 * // Whether another open file of the lock (as another process has) could take it.
 * const free = async () => {
 *   const file = await Deno.open(join(dir, LOCK_FILE), { write: true });
 *   try {
 *     return await file.tryLock(true);
 *   } finally {
 *     file.close();
 *   }
 * };
 * const lock = await lockConversation(dir, "c1");
 * const again = await lockConversation(dir, "c1"); // same process: shared
 * assert.match(await Deno.readTextFile(join(dir, LOCK_FILE)), new RegExp(`^${Deno.pid} `));
 * again.release();
 * assert.equal(await free(), false); // `lock` still holds it
 * lock.release();
 * assert.equal(await free(), true);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function lockConversation(dir: string, id: string): Promise<ConversationLock> {
  const path = join(dir, LOCK_FILE);
  let shared = held.get(path);
  if (shared === undefined) {
    shared = { taking: take(path, id), holders: 0 };
    held.set(path, shared);
  }
  // Counted before waiting, so a release meanwhile does not close the file.
  shared.holders++;
  const mine = shared;
  const forget = () => {
    mine.holders--;
    if (mine.holders > 0) return false;
    if (held.get(path) === mine) held.delete(path);
    return true;
  };
  let file: FileHandle;
  try {
    file = await mine.taking;
  } catch (error) {
    forget();
    throw error;
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      // Closing the file releases the lock. The file stays: removing it would
      // let a waiting writer lock a file the next one no longer sees.
      if (forget()) file.close();
    },
  };
}

async function take(path: string, id: string): Promise<FileHandle> {
  const file = await files.open(path, { read: true, write: true, create: true, mode: 0o600 });
  try {
    if (!await tryLockOverOwnCopies(file, path)) throw await lockedError(path, id);
    // Who holds it, for the message a second writer prints.
    await file.truncate(0);
    const note = new TextEncoder().encode(`${processId()} ${new Date().toISOString()}\n`);
    for (let offset = 0; offset < note.length;) offset += await file.write(note.subarray(offset));
  } catch (error) {
    file.close();
    throw error;
  }
  return file;
}

/**
 * Tries the lock; while the holder's note names this process (a child we
 * forked still has our released descriptor), tries again, backing off from
 * 1 to 50 ms, for at most {@linkcode OWN_COPY_RETRY_MS}.
 */
async function tryLockOverOwnCopies(file: FileHandle, path: string): Promise<boolean> {
  const deadline = Date.now() + OWN_COPY_RETRY_MS;
  for (let wait = 1;; wait = Math.min(wait * 2, 50)) {
    if (await file.tryLock(true)) return true;
    const [pid] = await holderNote(path);
    if (pid !== String(processId()) || Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** The holder's note: its pid and since when, as written by {@linkcode take}. */
async function holderNote(path: string): Promise<[string | undefined, string | undefined]> {
  const holder = (await files.readTextFile(path).catch(() => "")).trim().split(" ");
  const pid = holder[0] !== undefined && /^\d+$/.test(holder[0]) ? holder[0] : undefined;
  return [pid, holder[1]];
}

async function lockedError(path: string, id: string): Promise<SpillwayError> {
  const [pid, since] = await holderNote(path);
  const who = pid === undefined
    ? "another process"
    : `another process (pid ${pid}${since === undefined ? "" : `, since ${since}`})`;
  return new SpillwayError(
    "conversation_locked",
    `conversation ${id} is open in ${who}: nothing was changed; ` +
      `try again when that process has finished`,
    { conversation: id, path, ...(pid === undefined ? {} : { pid: Number(pid) }) },
  );
}
