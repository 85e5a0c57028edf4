/**
 * The file functions of the platform seam on Node, over `node:fs`: a
 * {@linkcode FileHandle} is a file descriptor, closed synchronously as a
 * `Deno.FsFile` is.
 *
 * @module
 */

import * as fs from "node:fs";
import { promisify } from "node:util";
import type { FileHandle, FileInfo, OpenOptions } from "./file_handle.ts";

const read = promisify(fs.read);
const write = promisify(fs.write);
const fsync = promisify(fs.fsync);
const fdatasync = promisify(fs.fdatasync);
const ftruncate = promisify(fs.ftruncate);
const fstat = promisify(fs.fstat);

/** The `node:fs` flags of `options`, as `Deno.open` reads them. */
function flagsOf(options: OpenOptions): number {
  const { constants } = fs;
  const writes = options.write === true || options.append === true;
  let flags = writes
    ? (options.read === true ? constants.O_RDWR : constants.O_WRONLY)
    : constants.O_RDONLY;
  if (options.append === true) flags |= constants.O_APPEND;
  if (options.createNew === true) flags |= constants.O_CREAT | constants.O_EXCL;
  else if (options.create === true) flags |= constants.O_CREAT;
  if (options.truncate === true) flags |= constants.O_TRUNC;
  return flags;
}

/** A `node:fs` stat as a {@linkcode FileInfo}. */
export function fileInfo(stats: fs.Stats): FileInfo {
  return {
    isFile: stats.isFile(),
    isDirectory: stats.isDirectory(),
    isSymlink: stats.isSymbolicLink(),
    size: stats.size,
    mtime: stats.mtime,
    mode: process.platform === "win32" ? null : stats.mode,
  };
}

/**
 * An open file descriptor. Reads and writes go at the descriptor's own
 * offset (pipes and FIFOs have no other) until a `seek`, after which the
 * handle keeps the position itself: Node has no lseek.
 */
class NodeFile implements FileHandle {
  readonly #fd: number;
  readonly #append: boolean;
  #position: number | null = null;
  #closed = false;

  constructor(fd: number, append: boolean) {
    this.#fd = fd;
    this.#append = append;
  }

  async read(buffer: Uint8Array): Promise<number | null> {
    if (buffer.length === 0) return 0;
    const { bytesRead } = await read(this.#fd, buffer, 0, buffer.length, this.#position);
    if (this.#position !== null) this.#position += bytesRead;
    return bytesRead === 0 ? null : bytesRead;
  }

  async write(bytes: Uint8Array): Promise<number> {
    const at = this.#append ? null : this.#position;
    const { bytesWritten } = await write(this.#fd, bytes, 0, bytes.length, at);
    if (at !== null) this.#position = at + bytesWritten;
    return bytesWritten;
  }

  writeSync(bytes: Uint8Array): number {
    const at = this.#append ? null : this.#position;
    const written = fs.writeSync(this.#fd, bytes, 0, bytes.length, at);
    if (at !== null) this.#position = at + written;
    return written;
  }

  seek(offset: number): Promise<number> {
    this.#position = offset;
    return Promise.resolve(offset);
  }

  truncate(size = 0): Promise<void> {
    return ftruncate(this.#fd, size);
  }

  sync(): Promise<void> {
    return fsync(this.#fd);
  }

  syncData(): Promise<void> {
    return fdatasync(this.#fd);
  }

  async stat(): Promise<FileInfo> {
    return fileInfo(await fstat(this.#fd));
  }

  tryLock(): Promise<boolean> {
    return Promise.resolve(true);
  }

  close(): void {
    if (this.#closed) throw new TypeError("the file is already closed");
    this.#closed = true;
    fs.closeSync(this.#fd);
  }

  [Symbol.dispose](): void {
    if (!this.#closed) this.close();
  }
}

/** Opens `path` on Node as `Deno.open` would. */
export async function openNodeFile(path: string, options: OpenOptions): Promise<FileHandle> {
  const fd = await new Promise<number>((resolve, reject) =>
    fs.open(path, flagsOf(options), options.mode ?? 0o666, (error, fd) => {
      if (error === null) resolve(fd);
      else reject(error);
    })
  );
  return new NodeFile(fd, options.append === true);
}
