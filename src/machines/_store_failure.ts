/**
 * Private helper: a store fault as a `SpillwayError("store_failed")`, kept
 * as is when the store already threw one.
 *
 * @module
 */

import { SpillwayError } from "../errors/spillway_error.ts";
import { reasonText } from "../errors/reason_text.ts";

/** `error` as a `SpillwayError`, `store_failed` unless it already has a code. */
export function asStoreFailure(error: unknown): SpillwayError {
  if (error instanceof SpillwayError) return error;
  return new SpillwayError("store_failed", reasonText(error), {}, { cause: error });
}
