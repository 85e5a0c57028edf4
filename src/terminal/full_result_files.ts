/**
 * Full-result files: the raw text of a response, saved where the terminal
 * can link to it, because the preview shows only its first lines and a cap
 * may have sent the assistant only its head. One file per call under the
 * conversation's results folder (`<workspace>/results/<conversation>/`),
 * readable by its owner only (mode 0600, folder 0700): tool output can
 * hold secrets. A call id a later turn reuses gets a new file
 * (`call_1-2.txt`), never the old one overwritten. `spillway conversation
 * gc` removes old ones.
 *
 * @module
 */

import { join } from "node:path";
import { fileNamePart } from "./file_name_part.ts";

/** Chunk size for writing: the whole text is never encoded at once. */
const WRITE_CHUNK_BYTES = 1024 * 1024;

/** Saves full results into one folder, one new file per call. */
export class FullResultFiles {
  readonly #dir: string;
  readonly #saved = new Map<string, string>();

  /** @param dir the folder (created on the first save) */
  constructor(dir: string) {
    this.#dir = dir;
  }

  /** Where call `callId`'s result was saved by this instance, if it was. */
  savedPath(callId: string): string | undefined {
    return this.#saved.get(callId);
  }

  /**
   * Saves `text` as call `callId`'s full result (once: a second save returns
   * the first file) and returns the path.
   *
   * @throws whatever the file system throws (the caller logs it)
   */
  save(callId: string, text: string): string {
    const known = this.#saved.get(callId);
    if (known !== undefined) return known;
    const { path, file } = this.#create(callId);
    try {
      writeTextInChunks(file, text);
    } finally {
      file.close();
    }
    this.#saved.set(callId, path);
    return path;
  }

  /**
   * Makes an existing file call `callId`'s full result (once, like
   * {@linkcode save}): a spool file (`move`) is moved into the folder, a
   * stored output is linked where it is. This is how an output too large to
   * hold, already written to disk while the tool ran, becomes the full-result
   * file without being read again.
   *
   * @throws whatever the file system throws (the caller logs it)
   */
  keep(callId: string, source: { readonly path: string; readonly move: boolean }): string {
    const known = this.#saved.get(callId);
    if (known !== undefined) return known;
    if (!source.move) {
      this.#saved.set(callId, source.path);
      return source.path;
    }
    // A placeholder claims the name; the rename then replaces it atomically.
    const { path, file } = this.#create(callId);
    file.close();
    try {
      Deno.renameSync(source.path, path);
    } catch (error) {
      // Another file system (EXDEV): copy, then drop the original.
      if (!(error instanceof Error && /cross-device|EXDEV/i.test(error.message))) {
        Deno.removeSync(path);
        throw error;
      }
      Deno.copyFileSync(source.path, path);
      Deno.removeSync(source.path);
    }
    this.#saved.set(callId, path);
    return path;
  }

  /** A new file for `callId` (`<id>.txt`, `<id>-2.txt`, …), mode 0600. */
  #create(callId: string): { path: string; file: Deno.FsFile } {
    Deno.mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    const base = fileNamePart(callId);
    for (let n = 1;; n++) {
      const path = join(this.#dir, n === 1 ? `${base}.txt` : `${base}-${n}.txt`);
      let file: Deno.FsFile;
      try {
        file = Deno.openSync(path, { write: true, createNew: true, mode: 0o600 });
      } catch (error) {
        if (error instanceof Deno.errors.AlreadyExists) continue;
        throw error;
      }
      // The umask cannot widen 0600, but an odd one could narrow it to unreadable.
      if (Deno.build.os !== "windows") Deno.chmodSync(path, 0o600);
      return { path, file };
    }
  }
}

/** Writes `text` as UTF-8 through one reused buffer. */
export function writeTextInChunks(file: Deno.FsFile, text: string): void {
  const encoder = new TextEncoder();
  const buffer = new Uint8Array(WRITE_CHUNK_BYTES);
  // A UTF-16 unit takes at most 3 UTF-8 bytes, so a third of the buffer always fits.
  const units = Math.floor(WRITE_CHUNK_BYTES / 3);
  for (let offset = 0; offset < text.length;) {
    let end = Math.min(text.length, offset + units);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--; // keep a pair together
    const { written } = encoder.encodeInto(text.slice(offset, end), buffer);
    let bytes = buffer.subarray(0, written);
    while (bytes.length > 0) bytes = bytes.subarray(file.writeSync(bytes));
    offset = end;
  }
}
