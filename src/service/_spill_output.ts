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
import type { BlobStore } from "../blobs/blob_store.ts";
import type { SourceCallEnd } from "./source_call.ts";

/**
 * `end` with its executed response's whole text stored in `store` and the
 * reference attached. Any other outcome comes back as it is. A store that
 * fails (a full disk) costs the reference, never the result: the failure is
 * logged and the response parks without one.
 */
export async function spillOutput(
  end: SourceCallEnd,
  store: BlobStore,
  log: Logger,
): Promise<SourceCallEnd> {
  const { outcome } = end;
  // A source that streamed its output into the store has spilled it already.
  if (outcome.kind !== "executed" || outcome.response.spilled !== undefined) return end;
  try {
    const blob = await store.put(outcome.response.content);
    const spilled = { ref: blob.ref, bytes: blob.bytes };
    return { ...end, outcome: { ...outcome, response: { ...outcome.response, spilled } } };
  } catch (error) {
    log.warn("could not store the whole output of {callId}: {error}", {
      callId: outcome.response.id,
      error,
    });
    return end;
  }
}
