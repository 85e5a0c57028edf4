/**
 * An open file, as the stores, the output spools and the builtin file
 * tools use one: the part of `Deno.FsFile` they need, which Node's file
 * descriptors can give too. On Deno the handle is the `Deno.FsFile` itself.
 *
 * @module
 */

/** What {@linkcode FileHandle.stat} and `stat()` tell of a file. */
export interface FileInfo {
  /** Whether it is a regular file. */
  readonly isFile: boolean;
  /** Whether it is a folder. */
  readonly isDirectory: boolean;
  /** Whether it is a symbolic link (only from `lstat`). */
  readonly isSymlink: boolean;
  /** Its size in bytes. */
  readonly size: number;
  /** When it was last changed, or null where the system does not say. */
  readonly mtime: Date | null;
  /** Its permission bits and type, or null on Windows. */
  readonly mode: number | null;
}

/** How {@linkcode FileHandle.seek} counts its offset: 0 from the start. */
export type SeekFrom = 0;

/** An open file. Close it once (or `using` it). */
export interface FileHandle extends Disposable {
  /** Reads into `buffer` from the current position; null at the end. */
  read(buffer: Uint8Array): Promise<number | null>;
  /** Writes some of `bytes` (maybe fewer) at the current position; returns how many. */
  write(bytes: Uint8Array): Promise<number>;
  /** {@linkcode FileHandle.write}, blocking the thread. */
  writeSync(bytes: Uint8Array): number;
  /** Moves the position to `offset` bytes from the start; returns it. */
  seek(offset: number, whence: SeekFrom): Promise<number>;
  /** Cuts (or extends) the file to `size` bytes (default 0). */
  truncate(size?: number): Promise<void>;
  /** Flushes the data and the metadata to the disk (fsync). */
  sync(): Promise<void>;
  /** Flushes the data to the disk (fdatasync). */
  syncData(): Promise<void>;
  /** What the system says of the open file. */
  stat(): Promise<FileInfo>;
  /**
   * Takes an advisory lock without waiting; false when another holds it.
   * On Node, which has no advisory locks, always true: see docs/package.md.
   */
  tryLock(exclusive?: boolean): Promise<boolean>;
  /** Closes the file (and drops its lock). */
  close(): void;
}

/** How {@linkcode open} opens a file; the flags of `Deno.open`. */
export interface OpenOptions {
  /** Read access. Default: true unless another access is asked for. */
  readonly read?: boolean;
  /** Write access. Default: false. */
  readonly write?: boolean;
  /** Every write goes to the end. Default: false. */
  readonly append?: boolean;
  /** Create the file if missing (needs write or append). Default: false. */
  readonly create?: boolean;
  /** Create the file, failing if it exists. Default: false. */
  readonly createNew?: boolean;
  /** Empty the file on open. Default: false. */
  readonly truncate?: boolean;
  /** Permission bits of a created file. Default: 0o666 less the umask. */
  readonly mode?: number;
}
