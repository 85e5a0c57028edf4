/**
 * The default stream backend: one append-only JSON-lines log per
 * conversation at `<root>/<id>/events.jsonl`, where `root` is the workspace's
 * `conversations` folder.
 *
 * The log is opened once and only ever appended to. `append` serializes a
 * whole batch into one reused byte buffer and writes it with a write loop
 * (one system call unless the OS takes less); `flush` is one `fdatasync` for
 * everything appended since, so a commit of a thousand responses costs one
 * fsync. Operations on one conversation are queued in call order (also
 * across handles of this store), so a load never sees half an append and two
 * appends never interleave. One process writes a conversation at a time:
 * `open` takes the conversation's writer lock (`conversation_lock.ts`) and
 * the last `close` of this store's handles releases it, so a second process
 * is refused, never interleaved.
 *
 * A failed flush cuts the log back to where it was last durable and syncs
 * that cut, so the events of a batch whose callers were told "not recorded"
 * are not part of the conversation on any later load.
 *
 * @module
 */

import { join } from "node:path";
import { SpillwayError } from "../errors/spillway_error.ts";
import type { BlobRef } from "../blobs/blob_ref.ts";
import { blobRefsInFile } from "../blobs/blob_refs_in_file.ts";
import type { ConversationStream, LoadedStream } from "./stream_store.ts";
import type { ConversationFacts, ConversationReader } from "./conversation_reader.ts";
import { assertConversationId } from "./assert_conversation_id.ts";
import { type ConversationLock, lockConversation } from "./conversation_lock.ts";
import { errorText, EVENTS_FILE, tornLineWarning } from "./_event_lines.ts";
import { findTornTail, readEventLog } from "./_event_log_file.ts";
import {
  FileConversationStream,
  type LogFileOps,
  type LogState,
  type Serial,
} from "./_file_conversation_stream.ts";
import * as files from "../platform/files.ts";
import type { FileHandle } from "../platform/file_handle.ts";
import { isNotFound } from "../platform/file_errors.ts";
import { isWindows } from "../platform/processes.ts";

/** The OS calls of {@linkcode FileStreamStore} on a log, replaceable to count or fail them. */
export interface FileStreamStoreOptions {
  /**
   * Makes a log's bytes durable: once per `flush()`, and once more after a
   * failed one (to make its cut durable). Default: `(file) => file.syncData()`.
   */
  readonly sync?: (file: FileHandle) => Promise<void>;
  /**
   * Writes some of `bytes` and returns how many; `bytes` may be reused once the promise
   * settles. Default: `file.writeSync(bytes)`, as a promise.
   */
  readonly write?: (file: FileHandle, bytes: Uint8Array) => Promise<number>;
  /**
   * Cuts a log back (a torn tail on open, a failed append or flush).
   * Default: `(file, size) => file.truncate(size)`.
   */
  readonly truncate?: (file: FileHandle, size: number) => Promise<void>;
}

/**
 * Conversations as files under `root`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileStreamStore } from "./file_stream_store.ts";
 * const root = await Deno.makeTempDir();
 * const store = new FileStreamStore(root);
 * const stream = await store.open("c1");
 * await stream.append([{ type: "turn_start", turn_id: "t1", prompt: "hi", at: "2026-11-29T22:56:00Z" }]);
 * await stream.flush();
 * assert.equal((await stream.load()).events.length, 1);
 * await stream.close();
 * assert.deepEqual(await store.list(), ["c1"]);
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export class FileStreamStore implements ConversationReader {
  /** The folder holding one sub-folder per conversation. */
  readonly root: string;
  readonly #ops: LogFileOps;
  readonly #queues = new Map<string, Promise<void>>();
  /** Per conversation with open handles (or an unfinished cut): what they share. */
  readonly #states = new Map<string, LogState>();

  /**
   * A store rooted at `root`; nothing is touched until the first `open`.
   *
   * @param root `<workspace>/conversations`; created on the first `open`
   * @param options the OS calls on a log; each defaults to the plain one
   */
  constructor(root: string, options: FileStreamStoreOptions = {}) {
    this.root = root;
    this.#ops = {
      sync: options.sync ?? ((file) => file.syncData()),
      write: options.write ?? writeNow,
      truncate: options.truncate ?? ((file, size) => file.truncate(size)),
    };
  }

  /**
   * Opens (creating if needed) conversation `id`. An existing log whose last
   * line is torn is cut back to its last complete event first, so appends
   * start on a fresh line; the skipped-line warning is reported by `load()`.
   * A cut that an earlier failed flush of this store could not complete is
   * retried first.
   *
   * @throws {TypeError} when `id` is not a valid conversation id
   * @throws {SpillwayError} `conversation_locked` when another process has it open;
   *   `store_failed` when the folder or file cannot be created or opened
   */
  async open(id: string): Promise<ConversationStream> {
    assertConversationId(id);
    const dir = join(this.root, id);
    const path = join(dir, EVENTS_FILE);
    const serial: Serial = (work) => this.#serial(id, work);
    return await serial(async () => {
      let lock: ConversationLock | undefined;
      try {
        const dirExisted = await exists(dir);
        // Only their owner reads conversations: 0700 folders (the workspace too, when this
        // creates it), a 0600 log, whatever the umask.
        await files.mkdir(dir, { recursive: true, mode: 0o700 });
        // Locked before the torn-tail check: another writer's line in
        // progress is not a torn line to cut off.
        lock = await lockConversation(dir, id);
        const fileExisted = await exists(path);
        const file = await files.open(path, {
          append: true,
          create: true,
          write: true,
          read: false,
          mode: 0o600,
        });
        const warnings: string[] = [];
        let state = this.#states.get(id);
        try {
          if (state?.unfinishedCut !== undefined) {
            await this.#finishCut(file, state.unfinishedCut);
            state.size = state.unfinishedCut.size;
            state.unfinishedCut = undefined;
          }
          const torn = fileExisted ? await findTornTail(path) : undefined;
          if (torn) {
            await this.#ops.truncate(file, torn.start);
            warnings.push(tornLineWarning(torn.bytes, torn.line));
          }
          // A new file is only durable once its directory entry is (and a new
          // folder once its own entry is); the two syncs can run together.
          await Promise.all([
            fileExisted ? undefined : syncDirectory(dir),
            dirExisted ? undefined : syncDirectory(this.root),
          ]);
          if (state === undefined) {
            const size = (await file.stat()).size;
            state = {
              durable: size,
              size,
              unflushed: new Set(),
              unfinishedCut: undefined,
              handles: 0,
            };
            this.#states.set(id, state);
          }
        } catch (error) {
          file.close();
          throw error;
        }
        state.handles += 1;
        const shared = state;
        const held = lock;
        return new FileConversationStream(id, path, file, {
          warnings,
          state: shared,
          serial,
          ops: this.#ops,
          onClose: () => {
            held.release();
            shared.handles -= 1;
            if (shared.handles === 0 && shared.unfinishedCut === undefined) this.#states.delete(id);
          },
        });
      } catch (error) {
        lock?.release();
        if (error instanceof SpillwayError && error.code === "conversation_locked") throw error;
        throw new SpillwayError(
          "store_failed",
          `could not open ${path}: ${errorText(error)}`,
          { path, conversation: id },
          { cause: error },
        );
      }
    });
  }

  /** Retries the cut of a failed flush or append, which must happen before anything else. */
  async #finishCut(file: FileHandle, cut: { size: number; reason: string }): Promise<void> {
    try {
      await this.#ops.truncate(file, cut.size);
      await this.#ops.sync(file);
    } catch (error) {
      throw new Error(
        `${cut.reason}, and cutting the file back to ${cut.size} bytes failed again ` +
          `(${errorText(error)})`,
        { cause: error },
      );
    }
  }

  /**
   * Lists conversation ids (folders holding an `events.jsonl`), oldest first
   * by the log's last write (mtime), ties by id.
   *
   * @throws {SpillwayError} `store_failed` when `root` exists but cannot be read
   */
  async list(): Promise<string[]> {
    const found: { id: string; mtime: number }[] = [];
    try {
      for await (const entry of files.readDir(this.root)) {
        if (!entry.isDirectory || !isValidId(entry.name)) continue;
        try {
          const info = await files.stat(join(this.root, entry.name, EVENTS_FILE));
          if (info.isFile) found.push({ id: entry.name, mtime: info.mtime?.getTime() ?? 0 });
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
      }
    } catch (error) {
      if (isNotFound(error)) return [];
      throw new SpillwayError(
        "store_failed",
        `could not list ${this.root}: ${errorText(error)}`,
        { path: this.root },
        { cause: error },
      );
    }
    found.sort((a, b) => a.mtime - b.mtime || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return found.map((entry) => entry.id);
  }

  /** The folder of the conversations (`root`). */
  get where(): string {
    return this.root;
  }

  /**
   * Conversation `id`'s log and its size.
   *
   * @throws {SpillwayError} `store_failed` when the log cannot be read (also when it does not exist)
   */
  async describe(id: string): Promise<ConversationFacts> {
    const location = this.logPath(id);
    try {
      return { location, bytes: (await files.stat(location)).size };
    } catch (error) {
      throw new SpillwayError(
        "store_failed",
        `could not read ${location}: ${errorText(error)}`,
        { path: location, conversation: id },
        { cause: error },
      );
    }
  }

  /** Adds every blob reference in every conversation's log to `into` (read in chunks). */
  async blobRefs(into: Set<BlobRef>): Promise<void> {
    for (const id of await this.list()) await blobRefsInFile(this.logPath(id), into);
  }

  /** Where conversation `id`'s log is (whether or not it exists). */
  logPath(id: string): string {
    assertConversationId(id);
    return join(this.root, id, EVENTS_FILE);
  }

  /**
   * Reads conversation `id`'s complete events without opening it for
   * writing: no lock, no repair, so it works while another process writes.
   *
   * @throws {SpillwayError} `store_failed` when the log cannot be read (also
   *   when it does not exist) or a line before the last is not an event
   */
  read(id: string): Promise<LoadedStream> {
    return readEventLog(this.logPath(id), this.#states.get(id)?.unfinishedCut?.size);
  }

  /** Runs `work` after every earlier operation on conversation `id` has settled. */
  #serial<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(id) ?? Promise.resolve();
    const result = previous.then(work);
    const tail = result.then(() => {}, () => {});
    this.#queues.set(id, tail);
    void tail.then(() => {
      if (this.#queues.get(id) === tail) this.#queues.delete(id);
    });
    return result;
  }
}

/**
 * Writes at once: an append is a copy into the page cache, which Deno's
 * asynchronous `write` did on this thread anyway for a large batch, and for
 * a small one (a single call's response) handed back only on a later turn
 * of the event loop, ~0.1 ms per commit. The fsync, which waits for the
 * disk, stays asynchronous.
 */
// deno-lint-ignore require-await -- async so that a failed write rejects
async function writeNow(file: FileHandle, bytes: Uint8Array): Promise<number> {
  return file.writeSync(bytes);
}

async function syncDirectory(path: string): Promise<void> {
  // Windows cannot open a directory as a file; its directory entries need no fsync.
  if (isWindows()) return;
  using dir = await files.open(path, { read: true });
  await dir.syncData();
}

async function exists(path: string): Promise<boolean> {
  try {
    await files.lstat(path);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

function isValidId(name: string): boolean {
  try {
    assertConversationId(name);
    return true;
  } catch {
    return false;
  }
}
