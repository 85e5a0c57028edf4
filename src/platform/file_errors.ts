/**
 * What a failed file or process operation means, on Deno (its
 * `Deno.errors` classes) and on Node (the error's `code`) alike.
 *
 * @module
 */

import { DENO } from "./_deno.ts";

function codeOf(error: unknown): unknown {
  return error instanceof Error ? (error as { code?: unknown }).code : undefined;
}

/**
 * Whether `error` says a path (or a process) does not exist.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isNotFound } from "./file_errors.ts";
 * import { stat } from "./files.ts";
 * assert.ok(await stat("/no/such/file").then(() => false, isNotFound));
 * ```
 */
export function isNotFound(error: unknown): boolean {
  if (DENO !== undefined && error instanceof DENO.errors.NotFound) return true;
  const code = codeOf(error);
  return code === "ENOENT" || code === "ESRCH";
}

/** Whether `error` says the path already exists. */
export function isAlreadyExists(error: unknown): boolean {
  if (DENO !== undefined && error instanceof DENO.errors.AlreadyExists) return true;
  return codeOf(error) === "EEXIST";
}

/** Whether `error` says the operation was not permitted. */
export function isPermissionDenied(error: unknown): boolean {
  if (DENO !== undefined && error instanceof DENO.errors.PermissionDenied) return true;
  const code = codeOf(error);
  return code === "EACCES" || code === "EPERM";
}

/** Whether `error` says the other end of a pipe or a connection went away. */
export function isBrokenPipe(error: unknown): boolean {
  if (
    DENO !== undefined &&
    (error instanceof DENO.errors.BrokenPipe || error instanceof DENO.errors.ConnectionReset)
  ) return true;
  const code = codeOf(error);
  return code === "EPIPE" || code === "ECONNRESET";
}
