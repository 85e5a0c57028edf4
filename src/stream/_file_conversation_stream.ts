/**
 * Private to the file store: one handle on a conversation's `events.jsonl`,
 * and the state every handle of that conversation shares.
 *
 * A failed flush takes everything appended since the last successful one
 * out of the conversation: the log is truncated back to where it was
 * durable, and that truncation is synced. Those events are the batch whose
 * callers were just told "not recorded"; left in the file, the next load
 * would send them to the model. When the cut cannot be completed either,
 * every handle refuses writes, loads stop at the durable end, and the store
 * retries the cut before it opens the conversation again.
 *
 * @module
 */

import { SpillwayError } from "../errors/spillway_error.ts";
import type { StreamEvent } from "./events.ts";
import type { ConversationStream, LoadedStream } from "./stream_store.ts";
import { errorText } from "./_event_lines.ts";
import { withEventLines } from "./_event_line_buffer.ts";
import { readEventLog } from "./_event_log_file.ts";
import type { FileHandle } from "../platform/file_handle.ts";

/** The OS calls the file store makes on a log, injectable to count or fail them. */
export interface LogFileOps {
  /** Makes the file's bytes (and size) durable. */
  sync(file: FileHandle): Promise<void>;
  /** Writes some of `bytes` and returns how many; `bytes` may be reused once the promise settles. */
  write(file: FileHandle, bytes: Uint8Array): Promise<number>;
  /** Cuts the file to `size` bytes. */
  truncate(file: FileHandle, size: number): Promise<void>;
}

/** What every handle of one conversation shares; operations on it are serialized. */
export interface LogState {
  /** The log's size after the last successful flush (or when it was opened): a failed flush cuts back to it. */
  durable: number;
  /**
   * The log's size now: where the next append lands. Every write to the log
   * goes through a handle of this state, one at a time, so the size is
   * known without asking the file system (a `stat` per append and per flush
   * was two system calls per commit).
   */
  size: number;
  /** Handles holding appended, not yet flushed events: told when a failed flush cuts those off. */
  readonly unflushed: Set<{ cutOff(): void }>;
  /**
   * When a cut failed: the size the file must still be cut back to, and why.
   * Every handle refuses writes meanwhile, and loads stop there.
   */
  unfinishedCut: { readonly size: number; readonly reason: string } | undefined;
  /** Open handles; the store forgets the state with the last one (unless a cut is unfinished). */
  handles: number;
}

/** Runs work after every earlier operation on the same conversation has settled. */
export type Serial = <T>(work: () => Promise<T>) => Promise<T>;

/** One open handle on `<root>/<id>/events.jsonl`. */
export class FileConversationStream implements ConversationStream {
  readonly id: string;
  readonly location: string;
  #file: FileHandle | undefined;
  /** Another handle's failed flush cut off events appended through this one. */
  #cutOff = false;
  readonly #warnings: readonly string[];
  readonly #state: LogState;
  readonly #serial: Serial;
  readonly #ops: LogFileOps;
  readonly #onClose: () => void;

  constructor(
    id: string,
    path: string,
    file: FileHandle,
    shared: {
      readonly warnings: readonly string[];
      readonly state: LogState;
      readonly serial: Serial;
      readonly ops: LogFileOps;
      readonly onClose: () => void;
    },
  ) {
    this.id = id;
    this.location = path;
    this.#file = file;
    this.#warnings = shared.warnings;
    this.#state = shared.state;
    this.#serial = shared.serial;
    this.#ops = shared.ops;
    this.#onClose = shared.onClose;
  }

  append(events: readonly StreamEvent[]): Promise<void> {
    // Serialized before queueing: it is the costly part and needs no file.
    return withEventLines(events, (bytes) =>
      this.#serial(async () => {
        const file = this.#usable("append to");
        if (bytes.length === 0) return;
        const before = this.#state.size;
        try {
          await writeAll(file, bytes, this.#ops);
        } catch (error) {
          await this.#rollBack(file, before);
          throw this.#failed("append to", error);
        }
        this.#state.size = before + bytes.length;
        this.#state.unflushed.add(this);
      }));
  }

  flush(): Promise<void> {
    return this.#serial(async () => {
      const file = this.#usable("flush");
      if (this.#cutOff) {
        this.#cutOff = false;
        throw new SpillwayError(
          "store_failed",
          `could not flush ${this.location}: the events appended through this handle were cut ` +
            `off when another flush of the conversation failed`,
          { path: this.location, conversation: this.id },
        );
      }
      const size = this.#state.size;
      try {
        await this.#ops.sync(file);
      } catch (error) {
        await this.#cutBack(file, error);
        throw this.#failed("flush", error);
      }
      this.#state.durable = size;
      this.#state.unflushed.clear();
    });
  }

  load(): Promise<LoadedStream> {
    return this.#serial(async () => {
      const loaded = await readEventLog(this.location, this.#state.unfinishedCut?.size);
      if (this.#warnings.length === 0) return loaded;
      return { events: loaded.events, warnings: [...this.#warnings, ...loaded.warnings] };
    });
  }

  close(): Promise<void> {
    return this.#serial(() => {
      if (this.#file !== undefined) {
        this.#file.close();
        this.#file = undefined;
        this.#state.unflushed.delete(this);
        this.#onClose();
      }
      return Promise.resolve();
    });
  }

  /** Called by the state when another handle's failed flush took this handle's events out. */
  cutOff(): void {
    this.#cutOff = true;
  }

  /** Cuts a partly written batch off again, so the log still ends with a complete event. */
  async #rollBack(file: FileHandle, size: number): Promise<void> {
    try {
      await this.#ops.truncate(file, size);
    } catch (error) {
      this.#state.unfinishedCut = {
        size,
        reason: `a failed append could not be cut off (${errorText(error)})`,
      };
    }
  }

  /**
   * Takes every event appended since the last successful flush out of the
   * log, durably. Whether the failed sync wrote any of them is unknown, so
   * only a synced truncation says they are gone.
   */
  async #cutBack(file: FileHandle, cause: unknown): Promise<void> {
    const to = this.#state.durable;
    for (const handle of this.#state.unflushed) if (handle !== this) handle.cutOff();
    this.#state.unflushed.clear();
    try {
      await this.#ops.truncate(file, to);
      this.#state.size = to;
      await this.#ops.sync(file);
    } catch (error) {
      this.#state.unfinishedCut = {
        size: to,
        reason: `a flush failed and the events appended since the last one could not be cut ` +
          `off (${errorText(error)})`,
      };
      throw new SpillwayError(
        "store_failed",
        `could not flush ${this.location}: ${errorText(cause)}; cutting off the events appended ` +
          `since the last flush failed too (${errorText(error)}): the file must be cut back to ` +
          `${to} bytes before it is used again`,
        { path: this.location, conversation: this.id, cutTo: to },
        { cause },
      );
    }
  }

  #usable(action: string): FileHandle {
    if (this.#file === undefined) {
      throw new SpillwayError(
        "store_failed",
        `cannot ${action} ${this.location}: the stream is closed`,
        { path: this.location, conversation: this.id },
      );
    }
    const unfinished = this.#state.unfinishedCut;
    if (unfinished !== undefined) {
      throw new SpillwayError(
        "store_failed",
        `cannot ${action} ${this.location}: ${unfinished.reason}, so the file holds events that ` +
          `are not part of the conversation; reopening it retries the cut`,
        { path: this.location, conversation: this.id, cutTo: unfinished.size },
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

async function writeAll(file: FileHandle, bytes: Uint8Array, ops: LogFileOps): Promise<void> {
  // write() may take fewer bytes than offered; 0 would loop forever.
  for (let offset = 0; offset < bytes.length;) {
    const n = await ops.write(file, bytes.subarray(offset));
    if (n <= 0) throw new Error(`write took 0 of ${bytes.length - offset} bytes`);
    offset += n;
  }
}
