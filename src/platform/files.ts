/**
 * The file system as the stores, spools, local tools and builtin file tools
 * use it, the same on Deno and on Node: Deno's own functions on Deno (so
 * nothing changes there), `node:fs` on Node. Errors stay each runtime's own;
 * {@linkcode isNotFound} and its siblings tell them apart on both.
 *
 * Only the house's edges import this (stores, tools, runtime, commands):
 * the pure layers (size, review) never touch a file.
 *
 * @module
 */

import * as fs from "node:fs/promises";
import { DENO } from "./_deno.ts";
import { fileInfo, openNodeFile } from "./_node_files.ts";
import type { FileHandle, FileInfo, OpenOptions } from "./file_handle.ts";

export type { FileHandle, FileInfo, OpenOptions, SeekFrom } from "./file_handle.ts";

/**
 * Opens `path` (as `Deno.open`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { makeTempDir, open, readTextFile, remove } from "./files.ts";
 * const dir = await makeTempDir();
 * {
 *   using file = await open(join(dir, "log"), { append: true, create: true });
 *   assert.equal(await file.write(new TextEncoder().encode("one\n")), 4);
 *   await file.syncData();
 * }
 * assert.equal(await readTextFile(join(dir, "log")), "one\n");
 * await remove(dir, { recursive: true });
 * ```
 */
export function open(path: string, options: OpenOptions = { read: true }): Promise<FileHandle> {
  return DENO === undefined ? openNodeFile(path, options) : DENO.open(path, options);
}

/** The whole file at `path`, as bytes. */
export async function readFile(path: string): Promise<Uint8Array> {
  if (DENO !== undefined) return await DENO.readFile(path);
  // A plain Uint8Array, as on Deno, not Node's Buffer subclass.
  const bytes = await fs.readFile(path);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The whole file at `path`, as UTF-8 text; `signal` aborts the read. */
export function readTextFile(
  path: string,
  options: { signal?: AbortSignal } = {},
): Promise<string> {
  if (DENO !== undefined) return DENO.readTextFile(path, options);
  return fs.readFile(path, {
    encoding: "utf8",
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/** Writes `text` to `path` (created with `mode` if missing, replaced otherwise). */
export function writeTextFile(
  path: string,
  text: string,
  options: { readonly mode?: number } = {},
): Promise<void> {
  return DENO === undefined
    ? fs.writeFile(path, text, options.mode === undefined ? {} : { mode: options.mode })
    : DENO.writeTextFile(path, text, options);
}

/** Makes the folder `path` (and its parents when `recursive`). */
export async function mkdir(
  path: string,
  options: { readonly recursive?: boolean; readonly mode?: number } = {},
): Promise<void> {
  if (DENO !== undefined) return await DENO.mkdir(path, options);
  await fs.mkdir(path, options);
}

/** Removes the file or folder `path` (a folder's contents too when `recursive`). */
export function remove(
  path: string,
  options: { readonly recursive?: boolean } = {},
): Promise<void> {
  if (DENO !== undefined) return DENO.remove(path, options);
  return options.recursive === true ? fs.rm(path, { recursive: true }) : removeOne(path);
}

async function removeOne(path: string): Promise<void> {
  const info = await fs.lstat(path);
  await (info.isDirectory() ? fs.rmdir(path) : fs.unlink(path));
}

/** Renames `from` to `to`, replacing `to`. */
export function rename(from: string, to: string): Promise<void> {
  return DENO === undefined ? fs.rename(from, to) : DENO.rename(from, to);
}

/** What the system says of `path`, following symbolic links. */
export async function stat(path: string): Promise<FileInfo> {
  return DENO === undefined ? fileInfo(await fs.stat(path)) : await DENO.stat(path);
}

/** What the system says of `path` itself, a symbolic link included. */
export async function lstat(path: string): Promise<FileInfo> {
  return DENO === undefined ? fileInfo(await fs.lstat(path)) : await DENO.lstat(path);
}

/** One entry of a folder. */
export interface DirEntry {
  /** Its name within the folder. */
  readonly name: string;
  /** Whether it is a regular file. */
  readonly isFile: boolean;
  /** Whether it is a folder. */
  readonly isDirectory: boolean;
  /** Whether it is a symbolic link. */
  readonly isSymlink: boolean;
}

/** The entries of the folder `path`, in the system's order. */
export async function* readDir(path: string): AsyncIterable<DirEntry> {
  if (DENO !== undefined) {
    yield* DENO.readDir(path);
    return;
  }
  for (const entry of await fs.readdir(path, { withFileTypes: true })) {
    yield {
      name: entry.name,
      isFile: entry.isFile(),
      isDirectory: entry.isDirectory(),
      isSymlink: entry.isSymbolicLink(),
    };
  }
}

/** `path` with every symbolic link resolved. */
export function realPath(path: string): Promise<string> {
  return DENO === undefined ? fs.realpath(path) : DENO.realPath(path);
}

/** Sets the permission bits of `path`. */
export function chmod(path: string, mode: number): Promise<void> {
  return DENO === undefined ? fs.chmod(path, mode) : DENO.chmod(path, mode);
}

/** Sets the access and change times of `path`. */
export function utime(path: string, atime: Date, mtime: Date): Promise<void> {
  return DENO === undefined ? fs.utimes(path, atime, mtime) : DENO.utime(path, atime, mtime);
}

/** A new empty folder under the system's temporary folder, named `prefix…`. */
export async function makeTempDir(options: { readonly prefix?: string } = {}): Promise<string> {
  if (DENO !== undefined) return await DENO.makeTempDir(options);
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  return await fs.mkdtemp(join(tmpdir(), options.prefix ?? "tmp-"));
}
