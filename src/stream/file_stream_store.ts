/**
 * The default stream backend: one append-only JSON-lines log per
 * conversation at `<root>/<id>/events.jsonl`, where `root` is the workspace's
 * `conversations` folder.
 *
 * The log is opened once and only ever appended to. `append` writes a whole
 * batch with one encode and a write loop; `flush` is one `fdatasync` for
 * everything appended since, so a commit of a thousand responses costs one
 * fsync. Operations on one conversation are queued in call order (also
 * across handles of this store), so a load never sees half an append and two
 * appends never interleave. One process writes a conversation at a time.
 *
 * @module
 */

import { join } from "node:path";
import { SpillwayError } from "../errors/spillway_error.ts";
import type { StreamEvent } from "./events.ts";
import type { ConversationStream, LoadedStream, StreamStore } from "./stream_store.ts";
import { assertConversationId } from "./assert_conversation_id.ts";
import { errorText, EVENTS_FILE, serializeEvents, tornLineWarning } from "./_event_lines.ts";
import { findTornTail, readEventLog } from "./_event_log_file.ts";

/** Hooks of {@linkcode FileStreamStore}, for tests that count or fail the OS calls. */
export interface FileStreamStoreOptions {
  /** Makes a log's bytes durable; called once per `flush()`. Default: `(file) => file.syncData()`. */
  readonly sync?: (file: Deno.FsFile) => Promise<void>;
  /** Writes some of `bytes` and returns how many. Default: `(file, bytes) => file.write(bytes)`. */
  readonly write?: (file: Deno.FsFile, bytes: Uint8Array) => Promise<number>;
}

type Serial = <T>(work: () => Promise<T>) => Promise<T>;

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
export class FileStreamStore implements StreamStore {
  /** The folder holding one sub-folder per conversation. */
  readonly root: string;
  readonly #sync: (file: Deno.FsFile) => Promise<void>;
  readonly #write: (file: Deno.FsFile, bytes: Uint8Array) => Promise<number>;
  readonly #queues = new Map<string, Promise<void>>();

  /**
   * A store rooted at `root`; nothing is touched until the first `open`.
   *
   * @param root `<workspace>/conversations`; created on the first `open`
   * @param options test hooks; both default to the plain OS calls
   */
  constructor(root: string, options: FileStreamStoreOptions = {}) {
    this.root = root;
    this.#sync = options.sync ?? ((file) => file.syncData());
    this.#write = options.write ?? ((file, bytes) => file.write(bytes));
  }

  /**
   * Opens (creating if needed) conversation `id`. An existing log whose last
   * line is torn is cut back to its last complete event first, so appends
   * start on a fresh line; the skipped-line warning is reported by `load()`.
   *
   * @throws {TypeError} when `id` is not a valid conversation id
   * @throws {SpillwayError} `store_failed` when the folder or file cannot be created or opened
   */
  async open(id: string): Promise<ConversationStream> {
    assertConversationId(id);
    const dir = join(this.root, id);
    const path = join(dir, EVENTS_FILE);
    const serial: Serial = (work) => this.#serial(id, work);
    return await serial(async () => {
      try {
        const dirExisted = await exists(dir);
        await Deno.mkdir(dir, { recursive: true });
        const fileExisted = await exists(path);
        const torn = fileExisted ? await findTornTail(path) : undefined;
        const file = await Deno.open(path, {
          append: true,
          create: true,
          write: true,
          read: false,
        });
        const warnings: string[] = [];
        try {
          if (torn) {
            await file.truncate(torn.start);
            warnings.push(tornLineWarning(torn.bytes, torn.line));
          }
          // A new file is only durable once its directory entry is (and a new
          // folder once its own entry is); the two syncs can run together.
          await Promise.all([
            fileExisted ? undefined : syncDirectory(dir),
            dirExisted ? undefined : syncDirectory(this.root),
          ]);
        } catch (error) {
          file.close();
          throw error;
        }
        return new FileConversationStream(
          id,
          path,
          file,
          warnings,
          serial,
          this.#sync,
          this.#write,
        );
      } catch (error) {
        throw new SpillwayError(
          "store_failed",
          `could not open ${path}: ${errorText(error)}`,
          { path, conversation: id },
          { cause: error },
        );
      }
    });
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
      for await (const entry of Deno.readDir(this.root)) {
        if (!entry.isDirectory || !isValidId(entry.name)) continue;
        try {
          const info = await Deno.stat(join(this.root, entry.name, EVENTS_FILE));
          if (info.isFile) found.push({ id: entry.name, mtime: info.mtime?.getTime() ?? 0 });
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
        }
      }
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return [];
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

class FileConversationStream implements ConversationStream {
  readonly id: string;
  readonly location: string;
  #file: Deno.FsFile | undefined;
  /** Why the stream refuses writes: after a failed fsync (or an append that could not be undone) nothing says what reached the disk. */
  #broken: string | undefined;
  readonly #warnings: readonly string[];
  readonly #serial: Serial;
  readonly #sync: (file: Deno.FsFile) => Promise<void>;
  readonly #write: (file: Deno.FsFile, bytes: Uint8Array) => Promise<number>;

  constructor(
    id: string,
    path: string,
    file: Deno.FsFile,
    warnings: readonly string[],
    serial: Serial,
    sync: (file: Deno.FsFile) => Promise<void>,
    write: (file: Deno.FsFile, bytes: Uint8Array) => Promise<number>,
  ) {
    this.id = id;
    this.location = path;
    this.#file = file;
    this.#warnings = warnings;
    this.#serial = serial;
    this.#sync = sync;
    this.#write = write;
  }

  append(events: readonly StreamEvent[]): Promise<void> {
    // Serialize before queueing: it is the costly part and needs no file.
    const bytes = new TextEncoder().encode(serializeEvents(events));
    return this.#serial(async () => {
      const file = this.#usable("append to");
      if (bytes.length === 0) return;
      let before: number | undefined;
      try {
        before = (await file.stat()).size;
        await writeAll(file, bytes, this.#write);
      } catch (error) {
        await this.#rollBack(file, before);
        throw this.#failed("append to", error);
      }
    });
  }

  flush(): Promise<void> {
    return this.#serial(async () => {
      const file = this.#usable("flush");
      try {
        await this.#sync(file);
      } catch (error) {
        this.#broken = `a flush failed (${errorText(error)})`;
        throw this.#failed("flush", error);
      }
    });
  }

  load(): Promise<LoadedStream> {
    return this.#serial(async () => {
      const loaded = await readEventLog(this.location);
      if (this.#warnings.length === 0) return loaded;
      return { events: loaded.events, warnings: [...this.#warnings, ...loaded.warnings] };
    });
  }

  close(): Promise<void> {
    return this.#serial(() => {
      this.#file?.close();
      this.#file = undefined;
      return Promise.resolve();
    });
  }

  /** Cuts a partly written batch off again, so the log still ends with a complete event. */
  async #rollBack(file: Deno.FsFile, size: number | undefined): Promise<void> {
    if (size === undefined) return;
    try {
      await file.truncate(size);
    } catch (error) {
      this.#broken = `a failed append could not be cut off (${errorText(error)})`;
    }
  }

  #usable(action: string): Deno.FsFile {
    if (this.#file === undefined) {
      throw new SpillwayError(
        "store_failed",
        `cannot ${action} ${this.location}: the stream is closed`,
        { path: this.location, conversation: this.id },
      );
    }
    if (this.#broken !== undefined) {
      throw new SpillwayError(
        "store_failed",
        `cannot ${action} ${this.location}: ${this.#broken}, so what reached the disk is ` +
          `unknown; close and reopen the conversation`,
        { path: this.location, conversation: this.id },
      );
    }
    return this.#file;
  }

  #failed(action: string, error: unknown): SpillwayError {
    return new SpillwayError(
      "store_failed",
      `could not ${action} ${this.location}: ${errorText(error)}`,
      { path: this.location, conversation: this.id },
      { cause: error },
    );
  }
}

async function writeAll(
  file: Deno.FsFile,
  bytes: Uint8Array,
  write: (file: Deno.FsFile, bytes: Uint8Array) => Promise<number>,
): Promise<void> {
  // write() may take fewer bytes than offered; 0 would loop forever.
  for (let offset = 0; offset < bytes.length;) {
    const n = await write(file, bytes.subarray(offset));
    if (n <= 0) throw new Error(`write took 0 of ${bytes.length - offset} bytes`);
    offset += n;
  }
}

async function syncDirectory(path: string): Promise<void> {
  // Windows cannot open a directory as a file; its directory entries need no fsync.
  if (Deno.build.os === "windows") return;
  using dir = await Deno.open(path, { read: true });
  await dir.syncData();
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
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
