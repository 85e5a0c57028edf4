/**
 * Keeping the payloads of a result's non-text blocks: the stream records
 * each block by its digest, never its bytes, so the service stores the
 * decoded bytes of every image, audio clip and embedded resource in the
 * workspace's blob store, under that digest, when the result arrives and
 * before the call parks. A provider that sends images reads them back from
 * there on every request, in this turn and in any later one; nothing else
 * holds them.
 *
 * @module
 */

import type { Logger } from "@logtape/logtape";
import type { BlobStore } from "../blobs/blob_store.ts";
import type { SourceCallEnd } from "./source_call.ts";

/**
 * `end` without its decoded payloads (a parked call must not hold them),
 * after storing each in `store` under the digest recorded for it, without
 * decoding or hashing it again (the same bytes twice are one blob). Without
 * a store they are only dropped. A store that fails (a full disk) costs the
 * kept payload, never the result: the failure is logged and the call parks
 * as it is; a model is then sent the block's placeholder line.
 */
export async function keepPayloads(
  end: SourceCallEnd,
  store: BlobStore | undefined,
  log: Logger,
): Promise<SourceCallEnd> {
  const { outcome, result, payloads } = end;
  if (payloads === undefined) return end;
  const kept = result === undefined ? { outcome } : { outcome, result };
  if (store === undefined || outcome.kind !== "executed") return kept;
  for (const [i, payload] of payloads.entries()) {
    if (payload === undefined) continue;
    try {
      await store.putHashed(payload.bytes, payload.ref);
    } catch (error) {
      log.warn("could not keep a {kind} payload of {callId}: {error}", {
        kind: result?.content[i]?.type,
        callId: outcome.response.id,
        error,
      });
    }
  }
  return kept;
}
