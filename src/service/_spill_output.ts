/**
 * Spilling a call's whole output (`spill = true`): the service stores the
 * raw text in the blob store, durably, when the result arrives and before
 * the call parks, and the parked response carries the blob's reference. The
 * Host decides the caps as ever; when it cuts the response, the cut refers
 * to a blob that was durable before anyone could receive that reference.
 *
 * @module
 */

import type { Logger } from "@logtape/logtape";
import type { BlobRef } from "../blobs/blob_ref.ts";
import type { SpillOptions } from "./call_pipeline.ts";
import type { SourceCallEnd } from "./source_call.ts";

/**
 * `end` with its executed response's whole text stored in `spill.store` and
 * the reference attached, recorded as `principal`'s output (when there is
 * one, and `spill.owners`). Any other outcome comes back as it is. A store
 * that fails (a full disk) costs the reference, never the result: the
 * failure is logged and the response parks without one; so does a record
 * of ownership that fails (the client could not read the output back).
 */
export async function spillOutput(
  end: SourceCallEnd,
  spill: SpillOptions,
  log: Logger,
  principal?: string,
): Promise<SourceCallEnd> {
  const { outcome } = end;
  if (outcome.kind !== "executed") return end;
  const { response } = outcome;
  // A source that streamed its output into the store has stored it already.
  let spilled = response.spilled;
  try {
    if (spilled === undefined) {
      const blob = await spill.store.put(response.content);
      spilled = { ref: blob.ref, bytes: blob.bytes };
    }
    // The store named it: a `sha256:` reference.
    if (principal !== undefined) await spill.owners?.add(principal, spilled.ref as BlobRef);
  } catch (error) {
    log.warn("could not store the whole output of {callId}: {error}", {
      callId: response.id,
      error,
    });
    if (response.spilled === undefined) return end;
    const { spilled: _unreadable, ...rest } = response;
    return { ...end, outcome: { ...outcome, response: rest } };
  }
  if (spilled === response.spilled) return end;
  return { ...end, outcome: { ...outcome, response: { ...response, spilled } } };
}
